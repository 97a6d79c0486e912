// Golden compiled tables: <case>.in.yaml -> <case>.out.yaml. An input holds the objects (a
// GatewayClass "switchyard" of our controller is added when none is given; a Service annotated
// test/endpoints: "N" gets an EndpointSlice of N ready addresses) and optionally the requests to
// resolve against the table; the output holds the compiled table of each Gateway and the resolve
// answers, explanations included. UPDATE_GOLDEN=1 rewrites the outputs.
import { worldOf as sortIntoWorld } from '../../../src/core/model/world';
import { translate } from '../../../src/core/translate';
import type { CompiledTable } from '../../../src/core/compile';
import type { World } from '../../../src/core/model/world';
import { resolve } from '../../../src/core/resolve';
import { applyDefaults } from '../../../src/core/validate';

export const CONTROLLER = 'switchyard.dev/gateway-controller';
const CLUSTER_KINDS = new Set(['GatewayClass', 'Namespace']);

export interface GoldenInput {
  description?: string;
  objects: any[];
  /** requests to resolve; `gateway` defaults to the first Gateway */
  requests?: ({ gateway?: string; context?: { random?: number; readable?: string[] } } & Record<string, unknown>)[];
}

export function worldOf(objects: any[]): World {
  const epoch = Date.parse('2026-03-01T10:00:00.000Z');
  const all = objects.map((o, i) => {
    const obj = applyDefaults(structuredClone(o));
    obj.metadata = { ...obj.metadata };
    if (CLUSTER_KINDS.has(obj.kind)) delete obj.metadata.namespace;
    else obj.metadata.namespace ??= 'default';
    obj.metadata.creationTimestamp ??= new Date(epoch + 1000 * i).toISOString();
    obj.metadata.generation ??= 1;
    if (obj.kind === 'Namespace') obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name };
    return obj;
  });
  if (!all.some((o) => o.kind === 'GatewayClass')) {
    all.push({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'switchyard', generation: 1 }, spec: { controllerName: CONTROLLER } });
  }
  return sortIntoWorld([...all, ...all.filter((o) => o.kind === 'Service').flatMap(sliceFor)]);
}

function sliceFor(svc: any): any[] {
  const n = Number(svc.metadata.annotations?.['test/endpoints']);
  if (!Number.isInteger(n) || n < 0) return [];
  const seed = [...`${svc.metadata.namespace}/${svc.metadata.name}`].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 250, 7);
  return [{
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { name: `${svc.metadata.name}-test`, namespace: svc.metadata.namespace, labels: { 'kubernetes.io/service-name': svc.metadata.name } },
    addressType: 'IPv4',
    ports: (svc.spec?.ports ?? []).map((p: any) => ({ name: p.name ?? '', protocol: p.protocol ?? 'TCP', port: typeof p.targetPort === 'number' ? p.targetPort : p.port })),
    endpoints: Array.from({ length: n }, (_, i) => ({ addresses: [`10.${seed}.0.${i + 1}`], conditions: { ready: true } })),
  }];
}

export function compileAll(world: World): { gateway: string; table: CompiledTable }[] {
  return world.gateways.map((gw) => {
    const ref = { namespace: gw.metadata.namespace!, name: gw.metadata.name };
    const t = translate(world, ref, { controllerName: CONTROLLER, now: '2026-03-02T00:00:00.000Z' });
    if (!t) throw new Error(`Gateway ${ref.namespace}/${ref.name} is not ours`);
    return { gateway: `${ref.namespace}/${ref.name}`, table: { ...t.table, unattached: t.unattached } };
  });
}

/** The same world with every list in reverse order: the tables must not change. */
export function reversedWorld(world: World): World {
  return Object.fromEntries(Object.entries(world).map(([k, v]) => [k, [...(v as unknown[])].reverse()])) as unknown as World;
}

export function goldenOutput(input: GoldenInput, reverse = false): unknown {
  const built = worldOf(input.objects);
  const world = reverse ? reversedWorld(built) : built;
  const tables = compileAll(world);
  const out: Record<string, unknown> = { tables: Object.fromEntries(tables.map((t) => [t.gateway, t.table])) };
  if (input.requests?.length) {
    out.resolve = input.requests.map((r) => {
      const { gateway, context, ...request } = r;
      const t = gateway ? tables.find((x) => x.gateway === gateway) : tables[0];
      if (!t) throw new Error(`no Gateway ${gateway}`);
      const ctx = context
        ? { ...(context.random !== undefined ? { random: context.random } : {}), ...(context.readable ? { canRead: (ns: string) => context.readable!.includes(ns) } : {}) }
        : {};
      const res = resolve(t.table, request as any, ctx);
      return { request: r, response: res };
    });
  }
  return out;
}
