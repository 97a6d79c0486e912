// The patch engines of the Kubernetes paths, per request: a server-side apply of a 64-listener
// Gateway (unchanged, and with one port changed), a conflict found, kubectl's client-side strategic
// merge patch of a 16-port Service, a JSON patch, and the Update entry of a write. Wall time is the
// median of 7 batches; CPU time is the process's over all batches, which a shared machine disturbs less.
// Prints `name: value unit (target ...)`.
import { applyPatch, recordUpdate } from '../src/core/kube-patch';
import { figureLine } from './record';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const GW = 'gateway.networking.k8s.io/v1';
const gateway = (port: number): Obj => ({ apiVersion: GW, kind: 'Gateway', metadata: { name: 'g', namespace: 'n', labels: { app: 'edge' } },
  spec: { gatewayClassName: 'switchyard', listeners: Array.from({ length: 64 }, (_, i) => ({ name: `l${i}`, port: i === 0 ? port : 8000 + i, protocol: 'HTTP', hostname: `h${i}.example`, allowedRoutes: { namespaces: { from: 'All' } } })) } });
const opts = { kind: 'Gateway', apiVersion: GW, fieldManager: 'ci', now: '2026-12-01T12:00:00Z' };
const APPLY = 'application/apply-patch+yaml';

function ok(r: ReturnType<typeof applyPatch>): Obj {
  if (!r.ok) throw new Error(r.message);
  return r.object as Obj;
}

function measure(name: string, target: string, fn: () => void, iterations: number): void {
  for (let i = 0; i < Math.min(iterations, 500); i++) fn();
  const batches: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let b = 0; b < 7; b++) {
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) fn();
    batches.push((performance.now() - t0) / iterations);
  }
  const cpu = process.cpuUsage(cpu0);
  batches.sort((a, b) => a - b);
  figureLine(`${name}: ${batches[3].toFixed(4)} ms (target ${target})`);
  figureLine(`${name}_cpu: ${((cpu.user + cpu.system) / 1000 / (7 * iterations)).toFixed(4)} ms (target ${target})`);
}

const body = JSON.stringify(gateway(80));
const live = ok(applyPatch(undefined, body, APPLY, opts));
const changed = JSON.stringify(gateway(81));
const other = ok(applyPatch(live, JSON.stringify({ apiVersion: GW, kind: 'Gateway', metadata: { name: 'g', namespace: 'n' }, spec: { listeners: [{ name: 'l63', port: 8063, protocol: 'HTTP' }] } }), APPLY, { ...opts, fieldManager: 'team' }));

measure('ssa_gateway_64_listeners_unchanged', '<= 1 ms', () => applyPatch(live, body, APPLY, opts), 200);
measure('ssa_gateway_64_listeners_one_port', '<= 1 ms', () => applyPatch(live, changed, APPLY, opts), 200);
measure('ssa_gateway_64_listeners_conflict', '<= 1 ms', () => applyPatch(other, JSON.stringify(gateway(80)).replace('"port":8063', '"port":9063'), APPLY, { ...opts, fieldManager: 'ci' }), 200);

const service: Obj = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'n' }, spec: { selector: { app: 's' }, ports: Array.from({ length: 16 }, (_, i) => ({ name: `p${i}`, port: 8000 + i, protocol: 'TCP', targetPort: 9000 + i })) } };
const smp = JSON.stringify({ spec: { '$setElementOrder/ports': service.spec.ports.map((p: Obj) => ({ port: p.port })).slice(1).concat([{ port: 7000 }]),
  ports: [{ port: 8003, targetPort: 1 }, { port: 7000, name: 'new', targetPort: 7 }, { $patch: 'delete', port: 8000 }] } });
measure('smp_service_16_ports_three_way', '<= 0.5 ms', () => ok(applyPatch(service, smp, 'application/strategic-merge-patch+json', { kind: 'Service', apiVersion: 'v1' })), 500);

const jsonPatch = JSON.stringify([{ op: 'test', path: '/spec/listeners/10/port', value: 8010 }, { op: 'replace', path: '/spec/listeners/10/port', value: 9010 }, { op: 'add', path: '/metadata/labels/x', value: 'y' }]);
measure('json_patch_gateway_64_listeners', '<= 0.5 ms', () => ok(applyPatch(live, jsonPatch, 'application/json-patch+json', { kind: 'Gateway', apiVersion: GW })), 500);

const after = { ...live, metadata: { ...live.metadata, labels: { app: 'edge', x: 'y' } } };
measure('record_update_gateway_64_listeners', '<= 1 ms', () => recordUpdate(live, after, { fieldManager: 'kubectl-edit', kind: 'Gateway', apiVersion: GW }), 200);
