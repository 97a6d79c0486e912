// The upcoming conformance cases (test/corpora/conformance/upcoming: tests that open upstream pull
// requests add or change) against the pure core, as the main corpus runs: every status expectation
// through the in-memory reconcile, every request a route table can answer through resolve(). A case
// a pull request changes runs here in its new form while the main corpus tests keep running the case
// it replaces, so both versions pass until upstream decides; where a pull request's reading
// contradicts the released test (#4815), its cases run against a GatewayClass that opts into it
// (OPT_IN_CLASSES), the others against the default class. Cases run whether or not the
// GatewayClass claims their features (the counts say which are unclaimed); the ones that still fail
// are listed in STILL_FAILING with the reason, and the test fails when that list is wrong either way.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { SUPPORTED_FEATURES } from '../../src/core/status/features';
import { CONTROLLER, Store, reconcile } from './status-harness';
import { CONFORMANCE_ADDRESS_POOL, loadCorpus, refKey, runCase, Totals, type Driver } from '../support/conformance';
import { loadBase, requestsOf, runCase as runRequests, needsDataPlane, type Outcome } from './conformance-requests-harness';
import { conformanceDir } from '../support/corpora';
import { OPT_IN_CLASSES, STILL_FAILING, classNameFor, optInGatewayClasses } from '../support/conformance-upcoming';
import type { CompiledTable } from '../../src/core/compile';

const main = loadCorpus({ controllerName: CONTROLLER });
const upcoming = loadCorpus({ controllerName: CONTROLLER, dir: join(main.dir, 'upcoming') });
const index = upcoming.load('index.json');
// the cases as loaded for each opt-in class ({GATEWAY_CLASS_NAME} = that class)
const forClass = new Map(Object.values(OPT_IN_CLASSES).map((c) => [c.name,
  loadCorpus({ controllerName: CONTROLLER, dir: upcoming.dir, className: c.name })]));
const claimed = new Set(SUPPORTED_FEATURES);


let clock = Date.parse('2026-11-29T17:00:00.000Z');
const nextNow = () => new Date((clock += 1000)).toISOString();

function memoryDriver(): Driver {
  const store = new Store(Date.parse('2026-01-01T00:00:00.000Z'));
  for (const o of [...main.base(), ...upcoming.base(), ...optInGatewayClasses(CONTROLLER)]) store.apply(o);
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
    appendRouteParents: (ref, entries) => {
      const route = store.get(ref.kind, ref.namespace, ref.name);
      if (!route) throw new Error(`statusWrites: no ${refKey(ref)}`);
      route.status = { ...(route.status ?? {}), parents: [...(route.status?.parents ?? []), ...entries] };
    },
  };
}

const statusTotals = new Totals();
const requestTotals = { passed: 0, failed: 0, dataPlane: 0 };
const failingCases = new Map<string, string[]>();
const unclaimedFeatures = new Set<string>();

describe('upcoming conformance cases (open upstream pull requests) against the core', () => {
  it('finds the upcoming corpus: 45 cases, 600 status and 116 request expectations', () => {
    expect(upcoming.cases.length).toBe(45);
    expect(index.totals.statusExpectations).toBe(600);
    expect(upcoming.cases.flatMap((c) => requestsOf(c)).length).toBe(116);
  });

  it('#4815\'s cases need their class: on the default class they fail exactly where the released tests want another reason', async () => {
    // the released ListenerSetHostnameConflict and ListenerSetProtocolConflict (the main corpus, on the
    // default class) want these same listeners Accepted=False with HostnameConflict / ProtocolConflict
    const failed: string[] = [];
    for (const [i, entry] of index.cases.entries()) if (entry.pr === 4815) failed.push(...(await runCase(upcoming.cases[i], memoryDriver(), CONTROLLER)).failed);
    expect(failed).toHaveLength(8);
    for (const f of failed) expect(f).toMatch(/^ListenerSet(Hostname|Protocol)Conflict: ListenerSet \S+ listener \S+ condition \{"type":"Accepted","status":"False","reason":"Conflicted"\}; has .*"Accepted=False\/(Hostname|Protocol)Conflict"/);
  });

  const base = [...loadBase(conformanceDir()), ...loadBase(upcoming.dir)];
  // the request harness substitutes its own class name: it reads the files as they are
  const raw = (file: string) => JSON.parse(readFileSync(join(upcoming.dir, file), 'utf8'));
  for (const [i, byDefault] of upcoming.cases.entries()) {
    const entry = index.cases[i];
    const className = classNameFor(entry);
    const c = forClass.get(className)?.cases[i] ?? byDefault;
    const label = `${entry.file.replace(/^cases\//, '').replace(/\.json$/, '')} (#${entry.pr}${entry.replaces ? `, replaces ${entry.replaces}` : ''}`
      + `${forClass.has(className) ? `, GatewayClass ${className}` : ''})`;
    it(label, async () => {
      for (const f of c.features ?? []) if (!claimed.has(f)) unclaimedFeatures.add(f);
      const tally = await runCase(c, memoryDriver(), CONTROLLER);
      statusTotals.add(tally);
      const outcomes: Outcome[] = runRequests(raw(entry.file), base);
      requestTotals.dataPlane += requestsOf(c).filter(needsDataPlane).length;
      const bad = outcomes.filter((o) => o.failures.length);
      requestTotals.passed += outcomes.length - bad.length;
      requestTotals.failed += bad.length;
      const problems = [...tally.failed, ...bad.map((o) => `${o.check.where} ${JSON.stringify(o.check.request)}: ${o.failures.join('; ')}`)];
      const name = entry.file.replace(/^cases\//, '').replace(/\.json$/, '');
      if (problems.length) failingCases.set(name, problems);
      if (STILL_FAILING[name]) expect(problems, `${name} is listed as still failing (${STILL_FAILING[name]}) but passes`).not.toEqual([]);
      else expect(problems).toEqual([]);
    });
  }

  afterAll(() => {
    console.log(`${statusTotals.line('upcoming conformance status', index.totals.statusExpectations)}\n`
      + `upcoming conformance requests through resolve: ${requestTotals.passed} passed, ${requestTotals.failed} failed; `
      + `${requestTotals.dataPlane} dataPlane requests left to the proxy tests\n`
      + `features of these cases the GatewayClass does not claim: ${[...unclaimedFeatures].sort().join(', ') || 'none'}\n`
      + `cases still failing: ${failingCases.size ? [...failingCases].map(([n, p]) => `\n  ${n}: ${p.length} failures, e.g. ${p[0]}`).join('') : 'none'}`);
  });
});
