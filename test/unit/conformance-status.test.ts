// Every status expectation of the Gateway API conformance corpus, checked against the pure core:
// build the world from base.json and the case's manifests, reconcile, compare; then each step
// (delete, apply, reconcile, compare). The corpus, the skips and the checks are in
// test/support/conformance.ts; test/int/conformance-api.test.ts runs the same through the API.
import { describe, it, expect, afterAll } from 'vitest';
import { SUPPORTED_FEATURES } from '../../src/core/status/features';
import { CONTROLLER, Store, reconcile } from './status-harness';
import { loadCorpus, runCase, skipReason, Totals, type Driver } from '../support/conformance';

const corpus = loadCorpus({ controllerName: CONTROLLER });
const supported = new Set(SUPPORTED_FEATURES);
const totals = new Totals();
let clock = Date.parse('2026-11-29T17:00:00.000Z');
const nextNow = () => new Date((clock += 1000)).toISOString();

function memoryDriver(): Driver {
  const store = new Store(Date.parse('2026-01-01T00:00:00.000Z'));
  for (const o of corpus.base()) store.apply(o);
  return {
    apply: (o) => void store.apply(o),
    delete: (r) => void store.delete(r),
    reconcile: () => void reconcile(store, { controllerName: CONTROLLER, now: nextNow() }),
    read: (kind, ns, name) => store.get(kind, ns, name),
  };
}

describe('conformance status expectations', () => {
  it('finds the corpus', () => {
    expect(corpus.cases.length, `no cases in ${corpus.dir}`).toBeGreaterThan(0);
  });

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

  afterAll(() => {
    console.log(totals.line('conformance status'));
  });
});
