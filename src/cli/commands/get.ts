// switchyard get KIND [NAME] [-n NS | -A] [-o table|yaml|json] [-l SELECTOR]
import { UsageError } from '../args';
import { unwrap, type Api } from '../client';
import { HELP, NAMESPACE, type Command } from '../command';
import { resolveKind } from '../kinds';
import { age, conditionRows, conditionSummary, table, toYaml } from '../format';
import type { KindInfo } from '../../core/model/kinds';

type Obj = { apiVersion?: string; kind?: string; metadata: { name: string; namespace?: string; creationTimestamp?: string; labels?: Record<string, string> }; spec?: any; status?: any; [k: string]: any };

export async function readObject(api: Api, info: KindInfo, namespace: string, name: string): Promise<Obj> {
  const plural = info.plural as never;
  const r = info.scope === 'Cluster'
    ? await api.GET('/api/v1/{plural}/{name}', { params: { path: { plural, name } } })
    : await api.GET('/api/v1/namespaces/{namespace}/{plural}/{name}', { params: { path: { namespace, plural, name } } });
  return unwrap(r) as unknown as Obj;
}

export async function listObjects(api: Api, info: KindInfo, namespace: string | undefined, labelSelector?: string): Promise<Obj[]> {
  const out: Obj[] = [];
  let cont: string | undefined;
  const plural = info.plural as never;
  do {
    const query = { ...(labelSelector ? { labelSelector } : {}), ...(cont ? { continue: cont } : {}) };
    const r = namespace !== undefined && info.scope === 'Namespaced'
      ? await api.GET('/api/v1/namespaces/{namespace}/{plural}', { params: { path: { namespace, plural }, query } })
      : await api.GET('/api/v1/{plural}', { params: { path: { plural }, query } });
    const page = unwrap(r) as unknown as { items: Obj[]; metadata?: { continue?: string } };
    out.push(...page.items);
    cont = page.metadata?.continue;
  } while (cont);
  return out;
}

function count(n: number | undefined): string {
  return n === undefined ? '0' : String(n);
}

/** Kind-specific columns, between NAME and AGE. */
function columns(info: KindInfo): { header: string[]; cells: (o: Obj) => string[] } {
  const routeParents = (o: Obj) => {
    const rows = conditionRows(o).filter((r) => r.c.type === 'Accepted');
    return `${rows.filter((r) => r.c.status === 'True').length}/${(o.spec?.parentRefs ?? []).length}`;
  };
  switch (info.kind) {
    case 'GatewayClass':
      return { header: ['CONTROLLER', 'ACCEPTED'], cells: (o) => [o.spec?.controllerName ?? '', conditionSummary(o, 'Accepted')] };
    case 'Gateway':
      return {
        header: ['CLASS', 'LISTENERS', 'ACCEPTED', 'PROGRAMMED'],
        cells: (o) => [o.spec?.gatewayClassName ?? '', count(o.spec?.listeners?.length), gwCond(o, 'Accepted'), gwCond(o, 'Programmed')],
      };
    case 'ListenerSet':
      return {
        header: ['GATEWAY', 'LISTENERS', 'ACCEPTED', 'PROGRAMMED'],
        cells: (o) => [`${o.spec?.parentRef?.namespace ?? o.metadata.namespace}/${o.spec?.parentRef?.name ?? ''}`, count(o.spec?.listeners?.length), gwCond(o, 'Accepted'), gwCond(o, 'Programmed')],
      };
    case 'HTTPRoute':
    case 'GRPCRoute':
    case 'TLSRoute':
      return { header: ['HOSTNAMES', 'PARENTS ACCEPTED'], cells: (o) => [(o.spec?.hostnames ?? []).join(',') || '*', routeParents(o)] };
    case 'TCPRoute':
    case 'UDPRoute':
      return { header: ['PARENTS ACCEPTED'], cells: (o) => [routeParents(o)] };
    case 'ReferenceGrant':
      return { header: ['FROM', 'TO'], cells: (o) => [(o.spec?.from ?? []).map((f: any) => `${f.kind}/${f.namespace}`).join(','), (o.spec?.to ?? []).map((t: any) => `${t.kind}${t.name ? `/${t.name}` : ''}`).join(',')] };
    case 'BackendTLSPolicy':
      return {
        header: ['TARGETS', 'HOSTNAME', 'ANCESTORS ACCEPTED'],
        cells: (o) => [
          (o.spec?.targetRefs ?? []).map((t: any) => `${t.kind}/${t.name}${t.sectionName ? `:${t.sectionName}` : ''}`).join(','),
          o.spec?.validation?.hostname ?? '',
          `${(o.status?.ancestors ?? []).filter((a: any) => (a.conditions ?? []).some((c: any) => c.type === 'Accepted' && c.status === 'True')).length}/${(o.status?.ancestors ?? []).length}`,
        ],
      };
    case 'Service':
      return { header: ['PORTS'], cells: (o) => [(o.spec?.ports ?? []).map((p: any) => `${p.port}${p.targetPort !== undefined && p.targetPort !== p.port ? `:${p.targetPort}` : ''}/${p.protocol ?? 'TCP'}`).join(',')] };
    case 'EndpointSlice':
      return {
        header: ['SERVICE', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS'],
        cells: (o) => [o.metadata.labels?.['kubernetes.io/service-name'] ?? '', o.addressType ?? '', (o.ports ?? []).map((p: any) => String(p.port)).join(','), (o.endpoints ?? []).flatMap((e: any) => e.addresses ?? []).slice(0, 3).join(',') + ((o.endpoints ?? []).length > 3 ? ',...' : '')],
      };
    case 'Secret':
      return { header: ['TYPE'], cells: (o) => [o.type ?? 'Opaque'] };
    case 'ConfigMap':
      return { header: ['DATA'], cells: (o) => [String(Object.keys(o.data ?? {}).length)] };
    default:
      return { header: [], cells: () => [] };
  }
}

function gwCond(o: Obj, type: string): string {
  const own = (o.status?.conditions ?? []).find((c: any) => c.type === type);
  return own?.status ?? '-';
}

export function renderTable(info: KindInfo, items: Obj[], allNamespaces: boolean): string {
  const cols = columns(info);
  const now = Date.now();
  const header = [...(allNamespaces && info.scope === 'Namespaced' ? ['NAMESPACE'] : []), 'NAME', ...cols.header, 'AGE'];
  const rows = items.map((o) => [...(allNamespaces && info.scope === 'Namespaced' ? [o.metadata.namespace ?? ''] : []), o.metadata.name, ...cols.cells(o), age(o.metadata.creationTimestamp, now)]);
  return table(header, rows);
}

export const getCommand: Command = {
  name: 'get',
  usage: 'switchyard get KIND [NAME] [-n NS | -A] [-o table|yaml|json] [-l SELECTOR]',
  options: [
    NAMESPACE,
    { name: 'all-namespaces', short: 'A', type: 'boolean', help: 'list across all namespaces' },
    { name: 'output', short: 'o', type: 'string', value: 'table|yaml|json', help: 'output format (default table)' },
    { name: 'selector', short: 'l', type: 'string', value: 'SELECTOR', help: 'label selector, e.g. app=web,tier!=db' },
    HELP,
  ],
  details: 'KIND: gatewayclasses (gc), gateways (gw), httproutes, grpcroutes, tlsroutes, tcproutes, udproutes, referencegrants,\nnamespaces (ns), services (svc), endpointslices, secrets, configmaps (cm); singular and kind names work too.',
  async run({ positionals, options }, { api, env, io }) {
    const [kindArg, name, extra] = positionals;
    if (!kindArg) throw new UsageError('get needs a KIND');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    const info = resolveKind(kindArg);
    const output = (options.output as string | undefined) ?? 'table';
    if (!['table', 'yaml', 'json', 'wide'].includes(output)) throw new UsageError('--output must be table, yaml or json');
    const all = Boolean(options['all-namespaces']);
    if (all && options.namespace) throw new UsageError('use either -n NS or -A, not both');
    if (all && name) throw new UsageError('-A lists; it cannot be used with a NAME');
    const namespace = (options.namespace as string | undefined) ?? env.namespace;
    if (name) {
      const obj = await readObject(api, info, namespace, name);
      if (output === 'yaml') io.out(toYaml(obj));
      else if (output === 'json') io.out(JSON.stringify(obj, null, 2) + '\n');
      else io.out(renderTable(info, [obj], false) + '\n');
      return 0;
    }
    const items = await listObjects(api, info, all ? undefined : namespace, options.selector as string | undefined);
    if (output === 'yaml' || output === 'json') {
      const list = { apiVersion: 'v1', kind: 'List', items };
      io.out(output === 'yaml' ? toYaml(list) : JSON.stringify(list, null, 2) + '\n');
      return 0;
    }
    if (items.length === 0) {
      io.err(`No ${info.plural} found${info.scope === 'Namespaced' && !all ? ` in namespace ${namespace}` : ''}.\n`);
      return 0;
    }
    io.out(renderTable(info, items, all) + '\n');
    return 0;
  },
};
