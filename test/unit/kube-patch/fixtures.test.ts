// Runs test/fixtures/kube/ssa-round-trips.yaml through the engines as the Kubernetes paths use
// them (applyPatch, then recordUpdate for every write that is not an apply), so that the answers
// the fixtures promise are the engines' answers, and cannot drift from them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { applyPatch, recordUpdate } from '../../../src/core/kube-patch';
import { FieldSet, pathString } from '../../../src/core/kube-patch/field-set';
import { deepEqual } from '../../../src/core/objects/canonical';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Step {
  request: { verb: 'apply' | 'patch' | 'create' | 'legacy'; fieldManager?: string; force?: boolean; dryRun?: boolean; type?: string; body: unknown };
  expect: { code: number; changed?: boolean; status?: Obj; object?: Obj; absent?: string[]; managers?: string[]; fieldsV1?: Record<string, Obj>;
    owns?: Record<string, string[]>; notOwns?: Record<string, string[]> };
}
interface Scenario { scenario: string; kind: string; apiVersion: string; namespace?: string; name: string; steps: Step[] }

const file = join(import.meta.dirname, '../../fixtures/kube/ssa-round-trips.yaml');
const { scenarios } = parse(readFileSync(file, 'utf8')) as { scenarios: Scenario[] };
const NOW = '2026-12-01T12:00:00Z';

interface Answer { code: number; object?: Obj; status?: Obj }

function send(current: Obj | undefined, s: Scenario, r: Step['request']): Answer {
  const opts = { kind: s.kind, apiVersion: s.apiVersion, now: NOW };
  if (r.verb === 'legacy') return { code: current ? 200 : 201, object: r.body as Obj };
  if (r.verb === 'create') return { code: 201, object: recordUpdate(undefined, r.body as object, { ...opts, fieldManager: r.fieldManager ?? 'unknown' }) as Obj };
  const type = r.verb === 'apply' ? 'application/apply-patch+yaml' : r.type!;
  const result = applyPatch(current, JSON.stringify(r.body), type, { ...opts, fieldManager: r.fieldManager, force: r.force });
  if (!result.ok) return { code: result.status, status: { reason: result.reason, message: result.message, ...(result.causes ? { causes: result.causes } : {}) } };
  const object = r.verb === 'apply' ? result.object : recordUpdate(current, result.object, { ...opts, fieldManager: r.fieldManager ?? 'unknown' });
  return { code: r.verb === 'apply' && !current ? 201 : 200, object: object as Obj };
}

function contains(actual: unknown, subset: unknown): boolean {
  if (Array.isArray(subset)) return Array.isArray(actual) && actual.length === subset.length && subset.every((v, i) => contains(actual[i], v));
  if (subset && typeof subset === 'object') return !!actual && typeof actual === 'object' && Object.entries(subset).every(([k, v]) => contains((actual as Obj)[k], v));
  return deepEqual(actual, subset);
}

const ownedPaths = (o: Obj, manager: string): string[] => {
  const entry = (o.metadata?.managedFields ?? []).find((m: Obj) => m.manager === manager);
  return entry ? FieldSet.fromFieldsV1(entry.fieldsV1).paths().map(pathString) : [];
};

it('the fixtures hold scenarios', () => expect(scenarios.length).toBeGreaterThanOrEqual(6));

for (const s of scenarios) {
  describe(s.scenario, () => {
    it('answers every step as the fixture says', () => {
      let current: Obj | undefined;
      s.steps.forEach((step, i) => {
        const where = `step ${i} (${step.request.verb} by ${step.request.fieldManager ?? '-'})`;
        const a = send(current, s, step.request);
        const e = step.expect;
        expect(a.code, `${where}: ${JSON.stringify(a.status)}`).toBe(e.code);
        if (e.status) {
          expect(a.status?.reason, where).toBe(e.status.reason);
          if (e.status.message !== undefined) expect(a.status?.message, where).toBe(e.status.message);
          if (e.status.messageMatches !== undefined) expect(a.status?.message, where).toMatch(new RegExp(e.status.messageMatches));
          if (e.status.causes !== undefined) expect(a.status?.causes, where).toEqual(e.status.causes);
        }
        if (!a.object) return;
        if (e.changed !== undefined) expect(!deepEqual(a.object, current), `${where}: changed`).toBe(e.changed);
        if (e.object) expect(contains(a.object, e.object), `${where}: ${JSON.stringify(a.object)}`).toBe(true);
        for (const p of e.absent ?? []) expect(p.split('.').reduce<unknown>((o, k) => (o as Obj | undefined)?.[k], a.object), `${where}: ${p}`).toBeUndefined();
        if (e.managers) expect((a.object.metadata.managedFields ?? []).map((m: Obj) => `${m.manager}/${m.operation}`).sort(), where).toEqual([...e.managers].sort());
        for (const [m, f] of Object.entries(e.fieldsV1 ?? {}))
          expect(a.object.metadata.managedFields.find((x: Obj) => x.manager === m && x.operation === 'Apply')?.fieldsV1, `${where}: ${m}`).toEqual(f);
        for (const [m, paths] of Object.entries(e.owns ?? {})) expect(ownedPaths(a.object, m), `${where}: ${m} owns`).toEqual(expect.arrayContaining(paths));
        for (const [m, paths] of Object.entries(e.notOwns ?? {})) for (const p of paths) expect(ownedPaths(a.object, m), `${where}: ${m} does not own`).not.toContain(p);
        if (!step.request.dryRun) current = a.object;
      });
    });
  });
}

it('the kubectl expectations list reads, each entry saying what kubectl does or why', () => {
  const list = parse(readFileSync(join(import.meta.dirname, '../../fixtures/kube/kubectl-expectations.yaml'), 'utf8')) as Obj[];
  expect(new Set(list.map((e) => e.id)).size).toBe(list.length);
  for (const e of list) expect(e.kubectl ?? e.why, e.id).toEqual(expect.any(String));
});
