// Table parts and deltas: every golden table survives parts and back byte for byte; a delta between
// two tables, applied to the first, gives the second byte for byte; a one-route change gives a
// delta the size of that route; a delta that does not fit is refused, never half applied.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { worldOf, CONTROLLER } from '../support/compile-world';
import { translate } from '../../src/core/translate';
import { tableParts, tableOfParts, textPart } from '../../src/core/snapshot/table-parts';
import { applyChanges, applyDelta, applyList, diffList, diffParts, diffTouched, DeltaMismatch, snapshotDelta, snapshotDeltaText } from '../../src/core/snapshot/delta';
import { tableHash } from '../../src/core/snapshot/table-hash';
import { tableTextOfParts, tableTextSteps } from '../../src/core/snapshot/table-text';
import { secretRefsOf, secretRefsOfParts } from '../../src/core/snapshot/format';
import type { CompiledTable } from '../../src/core/compile/types';

const dir = join(import.meta.dirname, '../golden/cases');
const cases = readdirSync(dir).filter((f) => f.endsWith('.in.yaml')).map((f) => join(dir, f)).sort();
const now = '2026-03-02T00:00:00.000Z';

function goldenTables(file: string): CompiledTable[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS());
  const objects = docs.length === 1 && Array.isArray(docs[0]?.objects) ? docs[0].objects : docs.filter((d) => d && d.kind !== 'GoldenOptions');
  const world = worldOf(objects);
  return world.gateways.flatMap((gw) => {
    const t = translate(world, { namespace: gw.metadata.namespace!, name: gw.metadata.name }, { controllerName: CONTROLLER, now });
    return t ? [t.table] : [];
  });
}

/** A table of `n` HTTPRoutes on listener "http" (one rule, two matches each) and a TCP listener, ordered as given. */
function table(routes: { name: string; path: string; weight?: number }[], extra: Partial<CompiledTable> = {}): CompiledTable {
  const sorted = [...routes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const index = new Map(sorted.map((r, i) => [r.name, i]));
  return {
    format: 'switchyard.dev/compiled-table/v1',
    gateway: { namespace: 'infra', name: 'edge' },
    infrastructure: { labels: { 'gateway.networking.k8s.io/gateway-name': 'edge' }, annotations: {} },
    listeners: [
      {
        name: 'http', port: 80, protocol: 'HTTP', valid: true,
        httpRoutes: routes.flatMap((r) => [0, 1].map((mi) => ({ hostname: '', rule: index.get(r.name)!, matchIndex: mi, match: { path: { type: 'PathPrefix' as const, value: `${r.path}/${mi}` } } }))),
      },
      { name: 'tcp', port: 9000, protocol: 'TCP', valid: true, tcpRoutes: [] },
    ],
    routes: sorted.map((r) => ({ kind: 'HTTPRoute' as const, namespace: 'apps', name: r.name, creationTimestamp: '2026-03-01T10:00:00.000Z' })),
    rules: sorted.map((r, i) => ({ route: i, index: 0, filters: [], backends: [{ group: '', kind: 'Service', namespace: 'apps', name: r.name, port: 80, weight: r.weight ?? 1, valid: true, endpoints: [{ address: '10.0.0.1', port: 8080 }] }] })),
    unattached: [],
    ...extra,
  };
}

const hashOf = (t: CompiledTable) => tableHash(tableParts(t), []);
const gateway = { namespace: 'infra', name: 'edge' };

/** Applies the delta from a to b to a's parts and checks the outcome is b, byte for byte. */
function roundTrip(a: CompiledTable, b: CompiledTable) {
  const pa = tableParts(a);
  const pb = tableParts(b, pa);
  const d = snapshotDelta(gateway, 1, 2, hashOf(b), pa, pb);
  // the text the worker sends, the parts' texts set in as they are, is the delta written whole
  const secrets = [{ namespace: 'infra', name: 'cert', data: { 'tls.crt': 'Y2VydA==' } }];
  expect(snapshotDeltaText(gateway, 1, 2, hashOf(b), pa, pb)).toBe(JSON.stringify(d));
  expect(snapshotDeltaText(gateway, 1, 2, hashOf(b), pa, pb, secrets)).toBe(JSON.stringify(snapshotDelta(gateway, 1, 2, hashOf(b), pa, pb, secrets)));
  const out = applyDelta(pa, 1, JSON.parse(JSON.stringify(d)), []);
  expect(JSON.stringify(out.table)).toBe(JSON.stringify(b));
  expect(tableTextOfParts(out.parts)).toBe(JSON.stringify(b));
  return d;
}

/** A small seeded generator (the same sequence on every run). */
function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
}

describe('table parts', () => {
  it("makes a large table's text in steps that pause every few thousand parts, the same text", () => {
    const t = table(Array.from({ length: 6000 }, (_, i) => ({ name: `r-${String(i).padStart(5, '0')}`, path: `/p${i}` })));
    const steps = tableTextSteps(tableParts(t));
    let pauses = 0;
    let r = steps.next();
    for (; !r.done; r = steps.next()) pauses++;
    // a pause every 4,096 parts of each walk: the indices of 6,000 routes and of 6,000 rules, the
    // 12,000 entries, the routes' texts and the rules
    expect(pauses).toBe(6);
    expect(r.value).toBe(JSON.stringify(t));
  });

  it('has golden tables to work on', () => expect(cases.length).toBeGreaterThan(80));
  it('gives back every golden table byte for byte', () => {
    let n = 0;
    let withSecrets = 0;
    for (const file of cases) for (const t of goldenTables(file)) {
      expect(JSON.stringify(tableOfParts(tableParts(t)))).toBe(JSON.stringify(t));
      expect(tableTextOfParts(tableParts(t))).toBe(JSON.stringify(t));
      expect(secretRefsOfParts(tableParts(t), 'infra')).toEqual(secretRefsOf(t, 'infra'));
      expect(diffParts(tableParts(t), tableParts(t))).toEqual({ changes: [] });
      // parts held as their text alone (the API's) stand for the same table
      const held = tableParts(t, undefined, textPart);
      expect(tableTextOfParts(held)).toBe(JSON.stringify(t));
      expect(JSON.stringify(tableOfParts(held))).toBe(JSON.stringify(t));
      expect(secretRefsOfParts(held, 'infra')).toEqual(secretRefsOf(t, 'infra'));
      expect(tableHash(held, [])).toBe(tableHash(tableParts(t), []));
      if (secretRefsOf(t, 'infra').length) withSecrets++;
      n++;
    }
    expect(n).toBeGreaterThan(80);
    expect(withSecrets).toBeGreaterThan(0);
  });

  it('reads the Secrets a table names off parts held as text, as a delta adds and removes the rules that name them', () => {
    const plain = cases.flatMap(goldenTables).find((t) => t.rules.filter((r) => r.backends?.length).length > 1)!;
    // the same table with one rule's backend verifying its peer against a CA Secret
    const named = structuredClone(plain);
    const rule = named.rules.find((r) => r.backends?.length)!;
    rule.backends[0] = { ...rule.backends[0], tls: { caCertificateSecrets: [{ group: '', kind: 'Secret', namespace: 'apps', name: 'ca-secret' }] } } as never;
    expect(secretRefsOf(named, 'infra')).toContainEqual({ namespace: 'apps', name: 'ca-secret' });
    expect(secretRefsOf(plain, 'infra')).not.toContainEqual({ namespace: 'apps', name: 'ca-secret' });
    const step = (from: CompiledTable, to: CompiledTable) => {
      const held = tableParts(from, undefined, textPart);
      secretRefsOfParts(held, 'infra');
      const d = JSON.parse(JSON.stringify(snapshotDelta({ namespace: 'infra', name: 'gw' }, 1, 2, 'h', tableParts(from), tableParts(to))));
      return secretRefsOfParts(applyChanges(held, d, textPart), 'infra');
    };
    expect(step(plain, named)).toEqual(secretRefsOf(named, 'infra'));
    expect(step(named, plain)).toEqual(secretRefsOf(plain, 'infra'));
  });

  it('gives ids that no other route moves: a route added first changes no other part', () => {
    const base = Array.from({ length: 50 }, (_, i) => ({ name: `r${String(i).padStart(3, '0')}`, path: `/p${i}` }));
    const d = roundTrip(table(base), table([{ name: 'a-first', path: '/new' }, ...base]));
    expect(d.changes.map((c) => [c.collection, c.removed.length, c.added.length, c.replaced.length])).toEqual([
      ['routes', 0, 1, 0], ['rules', 0, 1, 0], ['entries', 0, 2, 0],
    ]);
    expect(d.changes[2].added.map((a) => a.after)).toEqual([null, 'HTTPRoute/apps/a-first#0|0|']);
    expect(d.changes[1].added[0].item.route).toBe('HTTPRoute/apps/a-first');
  });

  it('sends a changed rule as replaced, and a moved entry as removed and added after its new predecessor', () => {
    const base = Array.from({ length: 20 }, (_, i) => ({ name: `r${String(i).padStart(2, '0')}`, path: `/p${i}` }));
    const reweighted = base.map((r, i) => (i === 7 ? { ...r, weight: 5 } : r));
    const d1 = roundTrip(table(base), table(reweighted));
    expect(d1.changes).toEqual([{ collection: 'rules', removed: [], added: [], replaced: [expect.objectContaining({ id: 'HTTPRoute/apps/r07#0' })] }]);
    const moved = [...base.slice(0, 3), base[15], ...base.slice(3, 15), ...base.slice(16)];
    const d2 = roundTrip(table(base), table(moved));
    expect(d2.changes).toHaveLength(1);
    expect(d2.changes[0].removed).toEqual(['HTTPRoute/apps/r15#0|0|', 'HTTPRoute/apps/r15#0|1|']);
    expect(d2.changes[0].added.map((a) => a.after)).toEqual(['HTTPRoute/apps/r02#0|1|', 'HTTPRoute/apps/r15#0|0|']);
  });

  it('carries a changed head, and listeners added, removed and changed with their entries', () => {
    const base = [{ name: 'a', path: '/a' }, { name: 'b', path: '/b' }];
    roundTrip(table(base), table(base, { addresses: [{ type: 'IPAddress', value: '192.0.2.1' }] }));
    const t = table(base);
    const swapped = { ...t, listeners: [t.listeners[1], { ...t.listeners[0], name: 'web' }] };
    roundTrip(t, swapped);
    roundTrip(swapped, t);
    roundTrip(t, { ...t, listeners: [{ ...t.listeners[0], httpRoutes: undefined, grpcRoutes: [] }, t.listeners[1]] });
    roundTrip(t, { ...t, listeners: [] });
  });

  it('tells repeated entries apart by their place among their equals', () => {
    const t = table([{ name: 'a', path: '/a' }, { name: 'b', path: '/b' }]);
    const l = t.listeners[0];
    const twice = { ...t, listeners: [{ ...l, httpRoutes: [...l.httpRoutes!, l.httpRoutes![0], l.httpRoutes![0]] }, t.listeners[1]] };
    const ids = [...tableParts(twice).entries.values()][0].ids;
    expect(ids.slice(-2)).toEqual(['HTTPRoute/apps/a#0|0||~2', 'HTTPRoute/apps/a#0|0||~3']);
    expect(JSON.stringify(tableOfParts(tableParts(twice)))).toBe(JSON.stringify(twice));
    roundTrip(t, twice);
    roundTrip(twice, t);
  });

  it('gives the second of any two random tables from the first', () => {
    const next = rng(16);
    const names = Array.from({ length: 30 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    const random = () => {
      const rs = names.filter(() => next() < 0.6).map((name) => ({ name, path: `/${Math.floor(next() * 4)}`, weight: 1 + Math.floor(next() * 2) }));
      for (let i = rs.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        if (next() < 0.3) [rs[i], rs[j]] = [rs[j], rs[i]];
      }
      return table(rs);
    };
    let prev = random();
    for (let k = 0; k < 200; k++) {
      const t = random();
      roundTrip(prev, t);
      prev = t;
    }
  });

  it('refuses a delta for another version, one whose table does not hash as it says, and one that does not fit', () => {
    const a = table([{ name: 'a', path: '/a' }]);
    const b = table([{ name: 'a', path: '/a' }, { name: 'b', path: '/b' }]);
    const pa = tableParts(a);
    const d = snapshotDelta(gateway, 1, 2, hashOf(b), pa, tableParts(b));
    expect(() => applyDelta(pa, 3, d, [])).toThrow(DeltaMismatch);
    expect(() => applyDelta(pa, 1, { ...d, hash: hashOf(a) }, [])).toThrow(/does not hash/);
    // applied twice: what it adds is there already
    const once = applyChanges(pa, d);
    expect(() => applyChanges(once, d)).toThrow(/there already/);
    // the parts it was applied to are left as they were
    expect(JSON.stringify(tableOfParts(pa))).toBe(JSON.stringify(a));
    // the hash covers the Secrets the client holds
    const secrets = [{ namespace: 'infra', name: 'cert', data: { 'tls.crt': 'eA==' } }];
    expect(() => applyDelta(pa, 1, d, secrets)).toThrow(/does not hash/);
  });
});

describe('a list delta found from the ids a change touched', () => {
  const listOf = (ids: string[], text: (id: string) => string = (id) => id) => ({ ids, parts: new Map(ids.map((id) => [id, { item: { id, t: text(id) }, text: JSON.stringify({ id, t: text(id) }), digest: undefined }])) });
  it('leads from the first list to the second, and is no larger than a diff of the whole lists', () => {
    let x = 7;
    const int = (n: number) => ((x = (x * 1103515245 + 12345) >>> 0) % n);
    for (let round = 0; round < 300; round++) {
      const a = Array.from({ length: 5 + int(40) }, (_, i) => `p${i}`);
      const touched = new Set<string>();
      let b = a.slice();
      for (let k = 1 + int(6); k > 0; k--) {
        const op = int(3);
        if (op === 0 && b.length) { const [id] = b.splice(int(b.length), 1); touched.add(id); } // removed
        else if (op === 1) { const id = `n${round}-${k}`; b.splice(int(b.length + 1), 0, id); touched.add(id); } // added
        else if (b.length) { const [id] = b.splice(int(b.length), 1); b.splice(int(b.length + 1), 0, id); touched.add(id); } // moved (or not)
      }
      const changedText = new Set([...touched].filter(() => int(2) === 0));
      const la = listOf(a);
      const lb = listOf(b, (id) => (changedText.has(id) ? `${id}'` : id));
      for (const id of b) if (!touched.has(id)) lb.parts.set(id, la.parts.get(id)!);
      const c = diffTouched(la, lb, touched);
      const out = applyList(la, c);
      expect(out.ids).toEqual(b);
      expect(b.map((id) => out.parts.get(id)!.text)).toEqual(b.map((id) => lb.parts.get(id)!.text));
      expect(JSON.stringify(c).length).toBeLessThanOrEqual(JSON.stringify(diffList(la, lb)).length * 1.5 + 20);
    }
  });

  it('applies deltas to long lists version after version (chunked), few or many removed, each version read back whole', () => {
    let x = 11;
    const int = (n: number) => ((x = (x * 1103515245 + 12345) >>> 0) % n);
    let ids = Array.from({ length: 3000 }, (_, i) => `p${i}`);
    let list: ReturnType<typeof applyList> = listOf(ids);
    const versions: [typeof list, string[]][] = [[list, ids.slice()]];
    for (let round = 0; round < 30; round++) {
      const next = ids.slice();
      // a few removed, or many (a route with many entries gone): the two ways applyList removes
      const gone = Array.from({ length: round % 3 === 0 ? 12 + int(20) : 1 + int(3) }, () => next.splice(int(next.length), 1)[0]);
      const added = Array.from({ length: 1 + int(4) }, (_, k) => `n${round}-${k}`);
      for (const id of added) next.splice(int(next.length + 1), 0, id);
      const c = diffList(list, listOf(next));
      expect(new Set(c.removed)).toEqual(new Set(gone));
      list = applyList(list, c);
      ids = next;
      versions.push([list, ids.slice()]);
      expect(list.ids).toEqual(ids);
    }
    // every version still reads as it was made
    for (const [v, expected] of versions) expect(v.ids).toEqual(expected);
  });
});
