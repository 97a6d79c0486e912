// Every status expectation of the Gateway API conformance corpus ($CONFORMANCE_DIR, default
// ../shared/conformance), checked against the pure core: build the world from base.json and the
// case's manifests, reconcile, compare; then each step (delete, apply, reconcile, compare).
// Request expectations belong to the route-table tests, not here.
import { describe, it, expect, afterAll } from 'vitest';
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SUPPORTED_FEATURES } from '../../src/core/status/features';
import { CONTROLLER, Store, reconcile } from './status-harness';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = process.env.CONFORMANCE_DIR ? resolve(process.env.CONFORMANCE_DIR) : resolve(root, '../shared/conformance');
const CLASS = 'switchyard';
const GW = 'gateway.networking.k8s.io';
const supported = new Set(SUPPORTED_FEATURES);

function load(file: string): any {
  const text = readFileSync(file, 'utf8')
    .replaceAll('{GATEWAY_CLASS_NAME}', CLASS)
    .replaceAll('{GATEWAY_CONTROLLER_NAME}', CONTROLLER);
  return JSON.parse(text);
}

const index = existsSync(join(dir, 'index.json')) ? load(join(dir, 'index.json')) : { cases: [] };
const cases: any[] = index.cases.map((c: any) => load(join(dir, c.file)));

function skipReason(c: any): string | undefined {
  const missing = (c.features ?? []).filter((f: string) => !supported.has(f));
  if (missing.length) return `missing ${missing.join(', ')}`;
  const rc = c.runCondition;
  if (rc?.skipIfSupported?.some((f: string) => supported.has(f)))
    return `runCondition: passes trivially when ${rc.skipIfSupported.filter((f: string) => supported.has(f)).join(', ')} is claimed`;
  if (rc?.skipUnlessSupported && !rc.skipUnlessSupported.every((f: string) => supported.has(f)))
    return `runCondition: needs ${rc.skipUnlessSupported.filter((f: string) => !supported.has(f)).join(', ')}`;
  return undefined;
}

// ---- expectation checking --------------------------------------------------------------------

interface Tally { passed: number; failed: string[] }

function condOk(actual: any[] | undefined, want: any): boolean {
  return (actual ?? []).some((c) => c.type === want.type && (want.status === undefined || c.status === want.status)
    && (want.reason === undefined || c.reason === want.reason));
}

function showConds(actual: any[] | undefined): string {
  return JSON.stringify((actual ?? []).map((c) => `${c.type}=${c.status}/${c.reason}`));
}

function genCurrent(conds: any[] | undefined, generation: number | undefined): boolean {
  return (conds ?? []).every((c) => c.observedGeneration === generation);
}

function parentRefMatches(route: any, actual: any, want: any): boolean {
  const ns = route.metadata.namespace;
  if ((actual?.group ?? GW) !== (want.group ?? GW) || (actual?.kind ?? 'Gateway') !== (want.kind ?? 'Gateway')) return false;
  if (actual?.name !== want.name || (actual?.namespace ?? ns) !== (want.namespace ?? ns)) return false;
  if (want.sectionName !== undefined && actual?.sectionName !== want.sectionName) return false;
  if (want.port !== undefined && actual?.port !== want.port) return false;
  return true;
}

function check(store: Store, e: any, where: string, before: Map<string, number> | undefined, t: Tally) {
  const ok = (cond: boolean, what: string) => (cond ? t.passed++ : t.failed.push(`${where}: ${what}`));
  for (const g of e.gatewayClasses ?? []) {
    const gc = store.get('GatewayClass', undefined, g.name);
    for (const c of g.conditions ?? [])
      ok(condOk(gc?.status?.conditions, c), `GatewayClass ${g.name} condition ${JSON.stringify(c)}; has ${showConds(gc?.status?.conditions)}`);
    if (g.conditionsObservedGenerationCurrent)
      ok(!!gc?.status?.conditions?.length && genCurrent(gc.status.conditions, gc.metadata.generation), `GatewayClass ${g.name} observedGeneration current`);
  }
  for (const g of e.gateways ?? []) {
    const gw = store.get('Gateway', g.namespace, g.name);
    const id = `Gateway ${g.namespace}/${g.name}`;
    for (const c of g.conditions ?? [])
      ok(condOk(gw?.status?.conditions, c), `${id} condition ${JSON.stringify(c)}; has ${showConds(gw?.status?.conditions)}`);
    if (g.conditionsObservedGenerationCurrent)
      ok(!!gw?.status?.conditions?.length && genCurrent(gw.status.conditions, gw.metadata.generation), `${id} observedGeneration current`);
    const listeners: any[] = gw?.status?.listeners ?? [];
    if (g.listenersExact) {
      const names = (g.listeners ?? []).map((l: any) => l.name).sort();
      ok(JSON.stringify(listeners.map((l) => l.name).sort()) === JSON.stringify(names), `${id} listeners exactly ${names}; has ${listeners.map((l) => l.name)}`);
    }
    for (const wl of g.listeners ?? []) {
      const l = listeners.find((x) => x.name === wl.name);
      const lid = `${id} listener ${wl.name}`;
      for (const c of wl.conditions ?? []) ok(condOk(l?.conditions, c), `${lid} condition ${JSON.stringify(c)}; has ${showConds(l?.conditions)}`);
      if (wl.attachedRoutes !== undefined) ok(l?.attachedRoutes === wl.attachedRoutes, `${lid} attachedRoutes ${wl.attachedRoutes}; has ${l?.attachedRoutes}`);
      if (wl.supportedKinds !== undefined) {
        const have: any[] = l?.supportedKinds ?? [];
        const good = wl.supportedKinds.length === 0
          ? !!l && have.length === 0
          : wl.supportedKinds.every((k: any) => have.some((h) => (h.group ?? GW) === (k.group ?? GW) && h.kind === k.kind));
        ok(good, `${lid} supportedKinds ${JSON.stringify(wl.supportedKinds)}; has ${JSON.stringify(have)}`);
      }
    }
  }
  for (const r of e.routes ?? []) {
    const route = store.get(r.kind, r.namespace, r.name);
    const id = `${r.kind} ${r.namespace}/${r.name}`;
    const parents: any[] = route?.status?.parents ?? [];
    for (const wp of r.parents ?? []) {
      const candidates = parents.filter((p) => route && parentRefMatches(route, p.parentRef, wp.parentRef) && p.controllerName === CONTROLLER);
      const best = candidates.find((p) => (wp.conditions ?? []).every((c: any) => condOk(p.conditions, c))) ?? candidates[0];
      for (const c of wp.conditions ?? [])
        ok(!!best && condOk(best.conditions, c), `${id} parent ${JSON.stringify(wp.parentRef)} condition ${JSON.stringify(c)}; has ${best ? showConds(best.conditions) : 'no matching parent'}`);
    }
    if (r.noAcceptedParents)
      ok(parents.length === 0 || (parents.length === 1 && condOk(parents[0].conditions, { type: 'Accepted', status: 'False' })),
        `${id} has no accepted parents; has ${JSON.stringify(parents.map((p) => showConds(p.conditions)))}`);
    if (r.conditionsObservedGenerationCurrent)
      ok(!!route && parents.length > 0 && parents.every((p) => genCurrent(p.conditions, route.metadata.generation)), `${id} observedGeneration current`);
  }
  for (const g of e.generationChanged ?? []) {
    const o = store.get(g.kind, g.namespace, g.name);
    const k = `${g.kind}/${g.namespace ?? ''}/${g.name}`;
    ok(!!o && before !== undefined && o.metadata.generation !== before.get(k), `${k} generation changed`);
  }
}

// ---- running ---------------------------------------------------------------------------------

const totals = { passed: 0, failed: 0, cases: 0, skipped: [] as string[] };
let clock = Date.parse('2026-11-29T17:00:00.000Z');
const nextNow = () => new Date((clock += 1000)).toISOString();

describe('conformance status expectations', () => {
  it('finds the corpus', () => {
    expect(cases.length, `no cases in ${dir}`).toBeGreaterThan(0);
  });

  for (const c of cases) {
    const skip = skipReason(c);
    if (skip) {
      totals.skipped.push(`${c.name} (${skip})`);
      it.skip(`${c.name}: ${skip}`, () => {});
      continue;
    }
    it(c.name, () => {
      const store = new Store(Date.parse('2026-01-01T00:00:00.000Z'));
      const base = load(join(dir, 'base.json'));
      for (const o of base) store.apply(o);
      for (const o of c.manifests ?? []) store.apply(o);
      const opts = { controllerName: CONTROLLER, now: nextNow() };
      reconcile(store, opts);
      const tally: Tally = { passed: 0, failed: [] };
      check(store, c.expect ?? {}, `${c.name}`, undefined, tally);
      (c.steps ?? []).forEach((s: any, si: number) => {
        const before = new Map<string, number>();
        for (const o of store.list()) before.set(`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, o.metadata.generation ?? 0);
        for (const d of s.delete ?? []) store.delete(d);
        for (const o of s.apply ?? []) store.apply(o);
        reconcile(store, { controllerName: CONTROLLER, now: nextNow() });
        check(store, s.expect ?? {}, `${c.name} step ${si + 1}`, before, tally);
      });
      totals.cases++;
      totals.passed += tally.passed;
      totals.failed += tally.failed.length;
      expect(tally.failed).toEqual([]);
    });
  }

  afterAll(() => {
    console.log(`conformance status: ${totals.passed} expectations passed, ${totals.failed} failed, in ${totals.cases} cases; `
      + `skipped: ${totals.skipped.length ? totals.skipped.join('; ') : 'none'}`);
  });
});
