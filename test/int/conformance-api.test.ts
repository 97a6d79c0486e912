// Every status expectation of the Gateway API conformance corpus, through the real service: base.json
// and each case's manifests are written with PUT (each Service's `conformance/endpoints` annotation
// becomes an EndpointSlice with that many ready addresses, written too), the worker reconciles,
// everything is read back with GET and compared; steps delete and apply through the API. One server
// for the file: base.json is written once, and each case's objects are deleted after it (base
// objects it replaced or deleted are written back), so that cases stay independent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_FEATURES } from '../../src/core/status/features';
import { kindInfo } from '../../src/core/model/kinds';
import type { K8sObject } from '../../src/core/model/objects';
import { reconciled, startTestServer, type TestServer } from '../support/server';
import { join } from 'node:path';
import { OPT_IN_CLASSES, STILL_FAILING, classNameFor, optInGatewayClasses } from '../support/conformance-upcoming';
import { AWAITING_DATA_PLANE, CONFORMANCE_ADDRESS_POOL, MESH_SKIP, check, conformanceEndpointSlice, loadCorpus, refKey, runCase, skipReason, Totals, type Driver, type ObjectRef, type Tally } from '../support/conformance';

const CONTROLLER = process.env.CONTROLLER_NAME || 'switchyard.dev/gateway-controller';
/**
 * CONFORMANCE_SUITE=upcoming runs the upcoming cases (open upstream pull requests, the corpus's
 * upcoming/ folder) on base.json plus upcoming/base.json, each by its file name, and checks the
 * ones still failing fail (test/int/conformance-upcoming-api.test.ts sets it). A pull request whose
 * reading contradicts the released tests (OPT_IN_CLASSES) has its cases run against a GatewayClass
 * of its own that opts into it, written with the base objects.
 */
const UPCOMING = process.env.CONFORMANCE_SUITE === 'upcoming';
const mainCorpus = loadCorpus({ controllerName: CONTROLLER });
const corpus = UPCOMING ? loadCorpus({ controllerName: CONTROLLER, dir: join(mainCorpus.dir, 'upcoming') }) : mainCorpus;
const upcomingIndex = UPCOMING ? corpus.load('index.json') : undefined;
const forClass = new Map(UPCOMING ? Object.values(OPT_IN_CLASSES).map((c) => [c.name,
  loadCorpus({ controllerName: CONTROLLER, dir: corpus.dir, className: c.name })]) : []);
const baseObjects = (): K8sObject[] => (UPCOMING ? [...mainCorpus.base(), ...corpus.base(), ...optInGatewayClasses(CONTROLLER)] : corpus.base());
// the claimed features and those whose data-plane part the proxy tests have still to pass
const supported = new Set([...SUPPORTED_FEATURES, ...AWAITING_DATA_PLANE]);
const totals = new Totals();
// Readers see events only below the oldest transaction still open anywhere on the PostgreSQL server
// (see README), so a long transaction of another database on a shared server delays the worker.
const RECONCILE_TIMEOUT_MS = 45_000;

let s: TestServer;
const base = new Map<string, K8sObject>();

function pathOf(r: ObjectRef): string {
  const info = kindInfo(r.kind);
  if (!info) throw new Error(`the corpus names a kind the API does not serve: ${r.kind}`);
  const name = encodeURIComponent(r.name);
  return info.scope === 'Cluster' ? `/api/v1/${info.plural}/${name}` : `/api/v1/namespaces/${encodeURIComponent(r.namespace ?? '')}/${info.plural}/${name}`;
}

const refOf = (o: K8sObject): ObjectRef => ({ kind: o.kind, namespace: kindInfo(o.kind)?.scope === 'Cluster' ? undefined : o.metadata.namespace, name: o.metadata.name });

/** The object and, for an annotated Service, its EndpointSlice. */
function withSlices(o: K8sObject): K8sObject[] {
  const slice = o.kind === 'Service' ? conformanceEndpointSlice(o) : undefined;
  return slice ? [o, slice] : [o];
}

async function put(o: K8sObject): Promise<void> {
  // the server owns these; the corpus sets none, and a write must not depend on them
  const { creationTimestamp: _c, generation: _g, resourceVersion: _r, uid: _u, ...metadata } = o.metadata as any;
  const r = await s.api('PUT', pathOf(refOf(o)), { ...o, metadata });
  if (r.status !== 200 && r.status !== 201) throw new Error(`PUT ${pathOf(refOf(o))}: ${r.status} ${r.text}`);
}

async function del(r: ObjectRef): Promise<void> {
  const res = await s.api('DELETE', pathOf(r));
  if (res.status !== 200 && res.status !== 404) throw new Error(`DELETE ${pathOf(r)}: ${res.status} ${res.text}`);
}

async function read(kind: string, namespace: string | undefined, name: string): Promise<K8sObject | undefined> {
  const r = await s.api('GET', pathOf({ kind, namespace, name }));
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(`GET ${pathOf({ kind, namespace, name })}: ${r.status} ${r.text}`);
  return r.body;
}

/** Drives the service over HTTP and remembers what a case touched, to undo it afterwards. */
function apiDriver(touched: Map<string, ObjectRef>): Driver {
  return {
    async apply(o) {
      for (const x of withSlices(o)) {
        touched.set(refKey(refOf(x)), refOf(x));
        await put(x);
      }
    },
    async delete(r) {
      const ref = { kind: r.kind, namespace: kindInfo(r.kind)?.scope === 'Cluster' ? undefined : r.namespace, name: r.name };
      touched.set(refKey(ref), ref);
      if (ref.kind === 'Service') {
        const cur = await read('Service', ref.namespace, ref.name);
        for (const x of cur ? withSlices(cur).slice(1) : []) {
          touched.set(refKey(refOf(x)), refOf(x));
          await del(refOf(x));
        }
      }
      await del(ref);
    },
    reconcile: () => reconciled(s, RECONCILE_TIMEOUT_MS),
    read,
    table: async (ns, name) => {
      const r = await s.api('GET', `/api/v1/namespaces/${encodeURIComponent(ns)}/gateways/${encodeURIComponent(name)}/snapshot`);
      if (r.status === 404) return undefined;
      if (r.status !== 200) throw new Error(`GET snapshot of ${ns}/${name}: ${r.status} ${r.text}`);
      return r.body.table;
    },
  };
}

async function undo(touched: Map<string, ObjectRef>): Promise<void> {
  for (const [k, ref] of [...touched].reverse()) {
    const original = base.get(k);
    if (original) await put(original);
    else await del(ref);
  }
  await reconciled(s, RECONCILE_TIMEOUT_MS);
}

beforeAll(async () => {
  s = await startTestServer({ controllerName: CONTROLLER, addressPool: [...CONFORMANCE_ADDRESS_POOL], rateLimitPerSecond: 100_000, rateLimitBurst: 100_000 });
  for (const o of baseObjects()) for (const x of withSlices(o)) {
    base.set(refKey(refOf(x)), x);
    await put(x);
  }
  await reconciled(s, RECONCILE_TIMEOUT_MS);
});

afterAll(async () => {
  console.log(totals.line(UPCOMING ? 'upcoming conformance via API' : 'conformance via API', UPCOMING ? upcomingIndex.totals.statusExpectations : corpus.totals.statusExpectations));
  await s?.close();
});

describe('conformance status expectations through the API', () => {
  it('finds the corpus', () => {
    expect(corpus.cases.length, `no cases in ${corpus.dir}`).toBeGreaterThan(0);
  });

  it('the GatewayClass claims the features the skips assume', async () => {
    const gc: any = await read('GatewayClass', undefined, 'switchyard');
    expect(gc.status.supportedFeatures.map((f: any) => f.name).sort()).toEqual([...SUPPORTED_FEATURES].sort());
  });

  for (const m of corpus.mesh) {
    totals.skipped.push(`${m.name} (${MESH_SKIP})`);
    it.skip(`${m.name}: ${MESH_SKIP}`, () => {});
  }

  for (const [i, byDefault] of corpus.cases.entries()) {
    // an upcoming case is named by its file (two pull requests may change one test)
    const name: string = UPCOMING ? upcomingIndex.cases[i].file.replace(/^cases\//, '').replace(/\.json$/, '') : byDefault.name;
    const c = UPCOMING ? forClass.get(classNameFor(upcomingIndex.cases[i]))?.cases[i] ?? byDefault : byDefault;
    const skip = UPCOMING
      ? ((c.steps ?? []).some((st: any) => st.statusWrites)
        ? 'statusWrites: the API serves status read-only (written by the control plane alone), so no test can seed another controller\'s entry'
        : undefined)
      : skipReason(c, supported);
    if (skip) {
      totals.skipped.push(`${name} (${skip})`);
      it.skip(`${name}: ${skip}`, () => {});
      continue;
    }
    it(name, async () => {
      const touched = new Map<string, ObjectRef>();
      try {
        const tally = await runCase(c, apiDriver(touched), CONTROLLER);
        totals.add(tally);
        if (UPCOMING && STILL_FAILING[name]) expect(tally.failed, `${name} is listed as still failing (${STILL_FAILING[name]}) but passes`).not.toEqual([]);
        else expect(tally.failed).toEqual([]);
        // every case of the corpus states expectations: one that checked none compared nothing
        expect(tally.passed).toBeGreaterThan(0);
      } finally {
        await undo(touched);
      }
    });
  }

  it('leaves base.json as it found it: the suite setup still holds', async () => {
    const setup = mainCorpus.cases.find((c) => c.name === 'SuiteSetup');
    expect(setup?.name, `no SuiteSetup case in ${mainCorpus.dir}`).toBe('SuiteSetup');
    const t: Tally = { passed: 0, failed: [] };
    await check(read, setup.expect ?? {}, 'after all cases', undefined, t, CONTROLLER);
    expect(t.failed).toEqual([]);
  });
});
