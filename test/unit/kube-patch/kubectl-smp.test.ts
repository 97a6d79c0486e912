// Our strategic merge patch against kubectl's own (the library kube-apiserver patches with), over
// the random cases scripts/record-kubectl-smp.ts recorded with `kubectl patch --local`: the same
// result where kubectl patched, a refusal where it refused.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { applyPatch } from '../../../src/core/kube-patch';

interface Recorded { original: Record<string, unknown>; patch: unknown; result?: unknown; error?: string }
const cases = JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/kube/strategic-merge-kubectl.json'), 'utf8')) as Recorded[];

it('the recording holds both patched and refused cases', () => {
  expect(cases.filter((c) => c.error).length).toBeGreaterThan(10);
  expect(cases.filter((c) => !c.error && !addsAndDeletes(c.patch)).length).toBeGreaterThan(100);
});

it('patches as kubectl does, case by case', () => {
  const wrong: string[] = [];
  cases.forEach((c, i) => {
    // a value a patch both adds to and deletes from a primitive list stays or goes upstream as Go's
    // map order falls (kubectl never sends both); we always delete it
    if (addsAndDeletes(c.patch)) return;
    const kind = c.original.kind as string;
    const r = applyPatch(c.original, JSON.stringify(c.patch), 'application/strategic-merge-patch+json', { kind, apiVersion: c.original.apiVersion as string });
    if (c.error !== undefined) {
      if (r.ok || (r.status !== 400 && r.status !== 422)) wrong.push(`case ${i}: kubectl refused (${c.error}), we answered ${JSON.stringify(r)}`);
    } else if (!r.ok) wrong.push(`case ${i}: kubectl patched, we refused: ${r.message}`);
    else if (JSON.stringify(sorted(r.object)) !== JSON.stringify(sorted(c.result)))
      wrong.push(`case ${i}: ${JSON.stringify(c.original)} + ${JSON.stringify(c.patch)}\n  kubectl: ${JSON.stringify(sorted(c.result))}\n  ours:    ${JSON.stringify(sorted(r.object))}`);
  });
  expect(wrong).toEqual([]);
});

function addsAndDeletes(patch: unknown): boolean {
  const meta = (patch as { metadata?: Record<string, unknown[]> }).metadata ?? {};
  return (meta['$deleteFromPrimitiveList/finalizers'] ?? []).some((f) => (meta.finalizers ?? []).includes(f));
}

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])]));
  return v;
}
