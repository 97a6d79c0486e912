// Every status expectation of the Gateway API conformance corpus, checked against the pure core:
// build the world from base.json and the case's manifests, reconcile, compare; then each step
// (delete, apply, reconcile, compare). The corpus, the skips and the checks are in
// test/support/conformance.ts; test/int/conformance-api.test.ts runs the same through the API.
import { describe, it, expect, afterAll } from 'vitest';
import { SUPPORTED_FEATURES } from '../../src/core/status/features';
import { CONTROLLER, Store, reconcile } from './status-harness';
import { AWAITING_DATA_PLANE, CONFORMANCE_ADDRESS_POOL, MESH_SKIP, check, loadCorpus, runCase, skipReason, Totals, type Driver, type Tally } from '../support/conformance';
import type { CompiledTable } from '../../src/core/compile';

const corpus = loadCorpus({ controllerName: CONTROLLER });
// the claimed features and those whose data-plane part the proxy tests have still to pass
const supported = new Set([...SUPPORTED_FEATURES, ...AWAITING_DATA_PLANE]);
const totals = new Totals();
let clock = Date.parse('2026-11-29T17:00:00.000Z');
const nextNow = () => new Date((clock += 1000)).toISOString();

function memoryDriver(): Driver {
  const store = new Store(Date.parse('2026-01-01T00:00:00.000Z'));
  for (const o of corpus.base()) store.apply(o);
  let tables = new Map<string, CompiledTable>();
  return {
    apply: (o) => void store.apply(o),
    delete: (r) => void store.delete(r),
    reconcile: () => {
      const { translations } = reconcile(store, { controllerName: CONTROLLER, now: nextNow(), addressPool: CONFORMANCE_ADDRESS_POOL });
      tables = new Map([...translations].map(([k, t]) => [k, t.table]));
    },
    read: (kind, ns, name) => store.get(kind, ns, name),
    table: (ns, name) => tables.get(`${ns}/${name}`),
  };
}

describe('conformance status expectations', () => {
  it('finds the corpus', () => {
    expect(corpus.cases.length, `no cases in ${corpus.dir}`).toBeGreaterThan(0);
  });

  for (const m of corpus.mesh) {
    totals.skipped.push(`${m.name} (${MESH_SKIP})`);
    it.skip(`${m.name}: ${MESH_SKIP}`, () => {});
  }

  for (const c of corpus.cases) {
    const skip = skipReason(c, supported);
    if (skip) {
      totals.skipped.push(`${c.name} (${skip})`);
      it.skip(`${c.name}: ${skip}`, () => {});
      continue;
    }
    it(c.name, async () => {
      const tally = await runCase(c, memoryDriver(), CONTROLLER);
      totals.add(tally);
      expect(tally.failed).toEqual([]);
    });
  }

  it('the checker catches wrong addresses and infrastructure', async () => {
    const gw: any = { kind: 'Gateway', metadata: { name: 'g', namespace: 'n', generation: 1 },
      status: { addresses: [{ type: 'IPAddress', value: '192.0.2.1' }, { value: '203.0.113.1' }] } };
    const table = { infrastructure: { labels: { a: '1' }, annotations: {} } };
    const run = async (want: any) => {
      const t: Tally = { passed: 0, failed: [] };
      await check(() => gw, { gateways: [{ namespace: 'n', name: 'g', ...want }] }, 't', undefined, t, CONTROLLER, () => table);
      return t;
    };
    const good = await run({ statusAddresses: { count: 2, typedMinCount: 1, includes: [{ placeholder: 'PLACEHOLDER_USABLE_ADDRS', compareType: true }] },
      compiledInfrastructure: { labels: { a: '1' } } });
    expect(good).toEqual({ passed: 4, failed: [] });
    for (const wrong of [
      { statusAddresses: { count: 1 } },
      { statusAddresses: { typedMinCount: 2 } },
      { statusAddresses: { includes: [{ value: '192.0.2.1', type: 'Hostname' }] } },
      { statusAddresses: { excludes: [{ placeholder: 'PLACEHOLDER_UNUSABLE_ADDRS' }] } },
      { compiledInfrastructure: { labels: { a: '2' } } },
      { compiledInfrastructure: { annotations: { b: '1' } } },
    ]) expect((await run(wrong)).failed, JSON.stringify(wrong)).toHaveLength(1);
  });

  it('the checker catches wrong ListenerSet, attachedListenerSets and parentsExact expectations', async () => {
    const objects: Record<string, any> = {
      'Gateway/n/g': { kind: 'Gateway', metadata: { name: 'g', namespace: 'n', generation: 1 }, status: { attachedListenerSets: 1 } },
      'ListenerSet/n/ls': { kind: 'ListenerSet', metadata: { name: 'ls', namespace: 'n', generation: 2 }, status: {
        conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', observedGeneration: 2 }],
        listeners: [{ name: 'a', attachedRoutes: 1, supportedKinds: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' }],
          conditions: [{ type: 'Programmed', status: 'True', reason: 'Programmed' }] }] } },
      'HTTPRoute/n/r': { kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'n', generation: 1 }, status: { parents: [
        { parentRef: { group: 'gateway.networking.k8s.io', kind: 'ListenerSet', name: 'ls' }, controllerName: CONTROLLER, conditions: [{ type: 'Accepted', status: 'True' }] },
        { parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'g' }, controllerName: CONTROLLER, conditions: [{ type: 'Accepted', status: 'True' }] }] } },
    };
    const read = (kind: string, ns: string | undefined, name: string) => objects[`${kind}/${ns}/${name}`];
    const run = async (e: any) => {
      const t: Tally = { passed: 0, failed: [] };
      await check(read, e, 't', undefined, t, CONTROLLER);
      return t;
    };
    const ls = (extra: any) => ({ listenerSets: [{ namespace: 'n', name: 'ls', ...extra }] });
    const parent = { parentRef: { group: 'gateway.networking.k8s.io', kind: 'ListenerSet', name: 'ls', namespace: 'n' }, conditions: [{ type: 'Accepted', status: 'True' }] };
    const good = await run({ gateways: [{ namespace: 'n', name: 'g', attachedListenerSets: 1 }],
      ...ls({ conditions: [{ type: 'Accepted', status: 'True' }], conditionsObservedGenerationCurrent: true, listenersExact: true,
        listeners: [{ name: 'a', attachedRoutes: 1, supportedKinds: [{ kind: 'HTTPRoute' }], conditions: [{ type: 'Programmed', status: 'True' }] }] }),
      routes: [{ kind: 'HTTPRoute', namespace: 'n', name: 'r', parents: [parent] }] });
    expect(good.failed).toEqual([]);
    for (const wrong of [
      { gateways: [{ namespace: 'n', name: 'g', attachedListenerSets: 2 }] },
      ls({ conditions: [{ type: 'Accepted', status: 'False' }] }),
      ls({ listeners: [{ name: 'a', attachedRoutes: 2 }] }),
      ls({ listeners: [{ name: 'b', conditions: [{ type: 'Accepted' }] }] }),
      ls({ listenersExact: true, listeners: [] }),
      ls({ listeners: [{ name: 'a', supportedKinds: [] }] }),
      { listenerSets: [{ namespace: 'n', name: 'missing', conditions: [{ type: 'Accepted' }] }] },
      { routes: [{ kind: 'HTTPRoute', namespace: 'n', name: 'r', parents: [parent], parentsExact: true }] },
    ]) expect((await run(wrong)).failed, JSON.stringify(wrong)).toHaveLength(1);
    objects['ListenerSet/n/ls'].metadata.generation = 3;
    expect((await run(ls({ conditionsObservedGenerationCurrent: true }))).failed).toHaveLength(1);
  });

  afterAll(() => {
    console.log(totals.line('conformance status', corpus.totals.statusExpectations));
  });
});
