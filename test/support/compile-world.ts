// A whole World from a list of objects, as the compile tests give them: defaulted, namespaced kinds
// in "default" unless they say otherwise, creationTimestamps one second apart in list order, a
// GatewayClass "switchyard" of our controller when none is given, and a Service annotated
// `test/endpoints: "N"` backed by an EndpointSlice of N ready addresses.
import { worldOf as sortIntoWorld } from '../../src/core/model/world';
import type { World } from '../../src/core/model/world';
import type { K8sObject } from '../../src/core/model/objects';
import { applyDefaults } from '../../src/core/validate';
import { CONTROLLER } from './object-store';

export { CONTROLLER };

const CLUSTER_KINDS = new Set(['GatewayClass', 'Namespace']);

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
  return sortIntoWorld([...all, ...all.flatMap((o) => (o.kind === 'Service' ? testEndpointSlices(o) : []))]);
}

/** The EndpointSlice a Service annotated `test/endpoints: "N"` stands for (none without the annotation). */
export function testEndpointSlices(svc: K8sObject): any[] {
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
