// Records what kubectl's own strategic merge patch code (`kubectl patch --local`, the library
// kube-apiserver patches with) makes of random patches of the built-in kinds, into
// test/fixtures/kube/strategic-merge-kubectl.json, which test/unit/kube-patch/kubectl-smp.test.ts
// holds our engine to without needing kubectl. Run it with kubectl on the PATH (`npx tsx
// scripts/record-kubectl-smp.ts [cases]`) and commit the result; the same seed gives the same cases.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';

type Obj = Record<string, unknown>;
const count = Number(process.argv[2] ?? 240);
const out = resolve(import.meta.dirname, '../test/fixtures/kube/strategic-merge-kubectl.json');

const label = fc.constantFrom('app', 'tier', 'team', 'x.example/y');
const value = fc.constantFrom('a', 'b', 'c');
const finalizer = fc.constantFrom('f.example/1', 'f.example/2', 'f.example/3');
const portNumber = fc.integer({ min: 80, max: 85 });
const port = fc.record({ port: portNumber, targetPort: fc.option(fc.integer({ min: 8080, max: 8082 }), { nil: undefined }), name: fc.option(fc.constantFrom('http', 'web'), { nil: undefined }) })
  .map((p) => JSON.parse(JSON.stringify(p)) as Obj);

const service = fc.record({
  labels: fc.option(fc.dictionary(label, value, { maxKeys: 3 }), { nil: undefined }),
  finalizers: fc.option(fc.uniqueArray(finalizer, { maxLength: 3 }), { nil: undefined }),
  ports: fc.uniqueArray(port, { selector: (p) => p.port, maxLength: 4 }),
  selector: fc.option(fc.dictionary(label, value, { minKeys: 1, maxKeys: 2 }), { nil: undefined }),
  externalIPs: fc.option(fc.uniqueArray(fc.constantFrom('192.0.2.1', '192.0.2.2', '192.0.2.3'), { minLength: 1, maxLength: 2 }), { nil: undefined }),
}).map(({ labels, finalizers, ports, selector, externalIPs }) => JSON.parse(JSON.stringify({
  apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop', labels, finalizers }, spec: { ports, selector, externalIPs },
})) as Obj);

const portPatch = fc.oneof(
  port,
  portNumber.map((p) => ({ $patch: 'delete', port: p })),
  fc.record({ port: portNumber, name: fc.constant(null) }),
  fc.constant({ $patch: 'replace' }),
  fc.constant({ targetPort: 1 }), // no merge key: an error
);

const servicePatch = (original: Obj) => fc.record({
  labels: fc.option(fc.dictionary(label, fc.option(value, { nil: null }), { maxKeys: 3 }), { nil: undefined }),
  finalizers: fc.option(fc.uniqueArray(finalizer, { maxLength: 2 }), { nil: undefined }),
  deleteFinalizers: fc.option(fc.uniqueArray(finalizer, { minLength: 1, maxLength: 2 }), { nil: undefined }),
  ports: fc.option(fc.array(portPatch, { maxLength: 3 }), { nil: undefined }),
  order: fc.option(fc.boolean(), { nil: undefined }),
  selector: fc.option(fc.oneof(fc.dictionary(label, fc.option(value, { nil: null }), { maxKeys: 2 }),
    fc.dictionary(label, value, { maxKeys: 2 }).map((d) => ({ ...d, $patch: 'replace' })), fc.constant({ $patch: 'delete' })), { nil: undefined }),
  externalIPs: fc.option(fc.oneof(fc.constant(null), fc.uniqueArray(fc.constantFrom('192.0.2.8', '192.0.2.9'), { maxLength: 2 })), { nil: undefined }),
  seed: fc.integer(),
}).map((p) => {
  const metadata: Obj = {};
  if (p.labels) metadata.labels = p.labels;
  if (p.finalizers) metadata.finalizers = p.finalizers;
  if (p.deleteFinalizers) metadata['$deleteFromPrimitiveList/finalizers'] = p.deleteFinalizers;
  const spec: Obj = {};
  if (p.ports) spec.ports = p.ports;
  if (p.selector !== undefined) spec.selector = p.selector;
  if (p.externalIPs !== undefined) spec.externalIPs = p.externalIPs;
  if (p.order) {
    // the order kubectl writes: every port of the patch that stays, then the original's, shuffled
    const kept = new Map<number, true>();
    for (const q of (p.ports ?? []) as Obj[]) if (typeof q.port === 'number' && q.$patch !== 'delete') kept.set(q.port, true);
    for (const q of ((original.spec as Obj).ports as Obj[])) if (!((p.ports ?? []) as Obj[]).some((d) => d.$patch === 'delete' && d.port === q.port)) kept.set(q.port as number, true);
    const order = [...kept.keys()].sort((a, b) => ((a * 7 + p.seed) % 11) - ((b * 7 + p.seed) % 11));
    spec['$setElementOrder/ports'] = order.map((n) => ({ port: n }));
  }
  return JSON.parse(JSON.stringify({ ...(Object.keys(metadata).length ? { metadata } : {}), ...(Object.keys(spec).length ? { spec } : {}) })) as Obj;
});

const configMap = fc.dictionary(label, value, { maxKeys: 3 }).map((data) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'shop' }, data }));
const configMapPatch = fc.oneof(
  fc.dictionary(label, fc.option(value, { nil: null }), { maxKeys: 3 }).map((data) => ({ data })),
  fc.dictionary(label, value, { maxKeys: 2 }).map((data) => ({ data: { ...data, $patch: 'replace' } })),
);
const slice = fc.uniqueArray(fc.constantFrom('10.0.0.1', '10.0.0.2', '10.0.0.3'), { minLength: 1, maxLength: 3 })
  .map((addresses) => ({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 's', namespace: 'shop' }, addressType: 'IPv4',
    endpoints: addresses.map((a) => ({ addresses: [a] })), ports: [{ name: 'http', port: 8080 }] }));
const slicePatch = fc.uniqueArray(fc.constantFrom('10.0.0.4', '10.0.0.1'), { minLength: 1, maxLength: 2 })
  .map((addresses) => ({ endpoints: addresses.map((a) => ({ addresses: [a], conditions: { ready: true } })) }));

const cases = fc.sample(fc.oneof(
  { weight: 6, arbitrary: service.chain((o) => servicePatch(o).map((patch) => ({ original: o, patch }))) },
  { weight: 1, arbitrary: configMap.chain((o) => configMapPatch.map((patch) => ({ original: o as Obj, patch: patch as Obj }))) },
  { weight: 1, arbitrary: slice.chain((o) => slicePatch.map((patch) => ({ original: o as Obj, patch: patch as Obj }))) },
), { numRuns: count, seed: 14 });

const dir = mkdtempSync(join(tmpdir(), 'smp-'));
try {
  const recorded = cases.map(({ original, patch }, i) => {
    const file = join(dir, `${i}.json`);
    writeFileSync(file, JSON.stringify(original));
    try {
      const stdout = execFileSync('kubectl', ['patch', '--local', '-f', file, '--type', 'strategic', '-p', JSON.stringify(patch), '-o', 'json'],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
      return { original, patch, result: JSON.parse(stdout) as Obj };
    } catch (e) {
      const stderr = String((e as { stderr?: string }).stderr ?? e).trim().split('\n')[0];
      return { original, patch, error: stderr };
    }
  });
  writeFileSync(out, `${JSON.stringify(recorded, null, 1)}\n`);
  console.log(`${recorded.length} cases, ${recorded.filter((r) => 'error' in r).length} refused, written to ${out}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
