// The core memoizes per route, per rule and per backend reference on object identity, in the
// TranslationContext the caller keeps (the worker passes the same objects again for whatever did
// not change). Whatever is memoized, a translation of a world that shares objects with earlier
// ones, in a context that saw them, must equal the translation of a fresh copy in a fresh context.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { worldOf, CONTROLLER } from '../support/compile-world';
import { translate, TranslationContext } from '../../src/core/translate';
import { compileGateway } from '../../src/core/compile';
import { tableTextOfParts } from '../../src/core/snapshot/table-text';
import type { World } from '../../src/core/model/world';

const dir = join(import.meta.dirname, '../golden/cases');
const cases = readdirSync(dir).filter((f) => f.endsWith('.in.yaml')).map((f) => join(dir, f)).sort();
const now = '2026-03-02T00:00:00.000Z';

/** Every Gateway's statuses and table, translated in `ctx` (whatever it memoized before is reused). */
function outputs(world: World, ctx: TranslationContext): string {
  return JSON.stringify(world.gateways.map((gw) => {
    const ref = { namespace: gw.metadata.namespace!, name: gw.metadata.name };
    const t = translate(world, ref, { controllerName: CONTROLLER, now }, undefined, ctx);
    if (!t) return null;
    // the table with its unattached routes, as compileGateway makes it, in the same context
    const table = compileGateway(t.attachment, world, {}, ctx);
    expect(JSON.stringify({ ...table, unattached: [] })).toBe(JSON.stringify(t.table));
    expect(table.unattached).toEqual(t.unattached);
    // the parts the worker stores write the same text
    expect(tableTextOfParts(t.compiledParts)).toBe(JSON.stringify(t.table));
    return { status: t.gatewayStatus, parents: t.routeParents, table };
  }));
}

/** A copy that shares no object with anything memoized. */
const fresh = (w: World): World => structuredClone(w);

/** A changed copy of an object (undefined: the object is removed). */
function edited(o: any, n: number): any {
  const c = structuredClone(o);
  switch (c.kind) {
    case 'Service':
      c.spec = { ...(c.spec ?? {}), ports: (c.spec?.ports ?? []).map((p: any, i: number) => (i === 0 ? { ...p, port: (p.port ?? 80) + n } : p)) };
      return c;
    case 'EndpointSlice':
      c.endpoints = [];
      return c;
    case 'ReferenceGrant':
      return undefined;
    case 'Namespace':
      c.metadata = { ...c.metadata, labels: { 'kubernetes.io/metadata.name': c.metadata.name } };
      return c;
    case 'ListenerSet': {
      // a hostname moved onto another listener's: conflicts, attachments and the table all change
      const ls = c.spec?.listeners ?? [];
      if (ls.length > 1) ls[0].hostname = ls[ls.length - 1].hostname;
      else c.spec.parentRef = { ...c.spec.parentRef, name: `${c.spec.parentRef?.name}-elsewhere` };
      return c;
    }
    case 'Gateway': {
      const l = c.spec?.listeners?.[0];
      if (l) l.allowedRoutes = { namespaces: { from: l.allowedRoutes?.namespaces?.from === 'All' ? 'Same' : 'All' } };
      return c;
    }
  }
  if (Array.isArray(c.spec?.rules) && c.spec.rules.length) {
    const r = c.spec.rules[0];
    if (Array.isArray(r.matches) && r.matches[0]?.path) r.matches[0] = { ...r.matches[0], path: { type: 'PathPrefix', value: `/edited-${n}` } };
    else if (Array.isArray(r.backendRefs) && r.backendRefs[0]) r.backendRefs[0] = { ...r.backendRefs[0], weight: 7 + n };
    else c.spec.rules = [];
    return c;
  }
  c.metadata = { ...c.metadata, name: `${c.metadata.name}-renamed` };
  return c;
}

describe('memoized translation', () => {
  it('has the golden cases to work on', () => expect(cases.length).toBeGreaterThan(80));
  for (const file of cases) {
    it(file.split('/').slice(-2).join('/'), () => {
      // compile cases hold { objects }; status cases are a stream of objects after their options
      const docs = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS());
      const objects = docs.length === 1 && Array.isArray(docs[0]?.objects) ? docs[0].objects : docs.filter((d) => d && d.kind !== 'GoldenOptions');
      const base = worldOf(objects);
      // one context for the whole sequence, as the worker keeps one; each reference gets a new one
      const ctx = new TranslationContext();
      const reference = (w: World) => outputs(fresh(w), new TranslationContext());
      expect(outputs(base, ctx)).toBe(reference(base));
      // one object changed at a time; everything else passed again as it was
      let n = 0;
      for (const key of ['routes', 'services', 'endpointSlices', 'referenceGrants', 'namespaces', 'gateways'] as const) {
        for (const target of base[key] as unknown[]) {
          const list = (base[key] as unknown[]).map((o) => (o === target ? edited(target, ++n) : o)).filter((o) => o !== undefined);
          const next = { ...base, [key]: list } as World;
          expect(outputs(next, ctx)).toBe(reference(next));
          expect(outputs(base, ctx)).toBe(reference(base));
        }
      }
    });
  }
});
