// switchyard describe KIND NAME [-n NS]: the object in words, with its conditions per parent or listener.
import { UsageError } from '../args';
import { HELP, NAMESPACE, type Command } from '../command';
import { resolveKind } from '../kinds';
import { age, conditionRows, conditionsTable, indent, table, toYaml } from '../format';
import { readObject } from './get';
import { readExplanation } from './explain-read';

function kv(map: Record<string, string> | undefined): string {
  const entries = Object.entries(map ?? {});
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join('\n              ') : '<none>';
}

const EXPLAINED = new Set(['GatewayClass', 'Gateway', 'HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute']);

export const describeCommand: Command = {
  name: 'describe',
  usage: 'switchyard describe KIND NAME [-n NS]',
  options: [NAMESPACE, HELP],
  async run({ positionals, options }, { api, env, io }) {
    const [kindArg, name, extra] = positionals;
    if (!kindArg || !name) throw new UsageError('describe needs KIND and NAME');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    const info = resolveKind(kindArg);
    const namespace = (options.namespace as string | undefined) ?? env.namespace;
    const o = await readObject(api, info, namespace, name);
    const m = o.metadata as Record<string, any>;
    const now = Date.now();
    const lines: string[] = [
      `Name:         ${m.name}`,
      ...(m.namespace ? [`Namespace:    ${m.namespace}`] : []),
      `Kind:         ${o.kind} (${o.apiVersion})`,
      `Labels:       ${kv(m.labels)}`,
      `Annotations:  ${kv(m.annotations)}`,
      `Created:      ${m.creationTimestamp ?? '<unknown>'} (${age(m.creationTimestamp, now)} ago)`,
      `Version:      resourceVersion ${m.resourceVersion}, generation ${m.generation ?? 1}`,
    ];
    const { apiVersion: _a, kind: _k, metadata: _m, status, ...content } = o;
    if (info.kind === 'Secret') {
      const data = (content as any).data as Record<string, string> | undefined;
      lines.push(`Type:         ${(content as any).type ?? 'Opaque'}`);
      lines.push(`Data:         ${data ? Object.entries(data).map(([k, v]) => `${k}: ${Buffer.from(v, 'base64').length} bytes`).join(', ') : '<not shown>'}`);
    } else if (Object.keys(content).length === 1 && 'spec' in content) {
      lines.push('Spec:', indent(toYaml(content.spec)));
    } else if (Object.keys(content).length) {
      lines.push('Content:', indent(toYaml(content)));
    }
    if (info.kind === 'Gateway') {
      const listeners = (o.spec?.listeners ?? []) as any[];
      const st = new Map(((status?.listeners ?? []) as any[]).map((l) => [l.name, l]));
      if (listeners.length) {
        lines.push('Listeners:', indent(table(['NAME', 'PORT', 'PROTOCOL', 'HOSTNAME', 'ATTACHED ROUTES'],
          listeners.map((l) => [l.name, String(l.port), l.protocol, l.hostname ?? '*', String(st.get(l.name)?.attachedRoutes ?? '-')]))));
      }
      const addrs = (status?.addresses ?? []) as any[];
      if (addrs.length) lines.push(`Addresses:    ${addrs.map((a) => a.value).join(', ')}`);
    }
    const rows = conditionRows(o).map((r) => ({ ...r, scope: r.scope === '(object)' ? info.kind : r.scope }));
    // the server says why a status is missing (a class of another controller, a Gateway that does not exist...)
    const why = EXPLAINED.has(info.kind) ? (await readExplanation(api, info, namespace, name)).entries.filter((e) => e.reason !== 'Reported') : [];
    lines.push('Conditions:');
    lines.push(rows.length ? indent(conditionsTable(rows, now)) : why.length ? '  <none>' : '  <none yet: the reconciler has not reported on this object>');
    if (why.length) {
      lines.push('Why no status:');
      for (const e of why) lines.push(`  ${e.reason}: ${e.message}`);
    }
    io.out(lines.join('\n') + '\n');
    return 0;
  },
};
