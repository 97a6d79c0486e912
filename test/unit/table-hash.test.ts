// The snapshot's hash over the table's parts, as openapi/schemas/snapshot.yaml spells it out: a
// client that follows the description gets the same hash, the same table gets it however its
// parts were made, and any change to the table or to a Secret's data moves it.
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { hashWork, tableHash } from '../../src/core/snapshot/table-hash';
import { part, tableParts } from '../../src/core/snapshot/table-parts';
import { noteEdited, SpanOfEdits } from '../../src/core/snapshot/list-edits';
import { secretDigests } from '../../src/core/snapshot/format';
import { canonicalJson } from '../../src/core/objects/canonical';
import type { CompiledTable } from '../../src/core/compile/types';

const table = (paths: string[], extra: Partial<CompiledTable> = {}): CompiledTable => ({
  format: 'switchyard.dev/table/v1',
  gateway: { namespace: 'infra', name: 'edge' },
  listeners: [
    { name: 'http', port: 80, protocol: 'HTTP', valid: true, httpRoutes: paths.map((p, i) => ({ hostname: '', rule: i, matchIndex: 0, match: { path: { type: 'PathPrefix', value: p } } })) },
    { name: 'tcp', port: 9000, protocol: 'TCP', valid: true, tcpRoutes: [] },
  ],
  routes: paths.map((p) => ({ kind: 'HTTPRoute', namespace: 'apps', name: `r${p.slice(1)}` })),
  rules: paths.map((_, i) => ({ route: i, index: 0, filters: [], backends: [] })),
  unattached: [],
  ...extra,
} as unknown as CompiledTable);

const sha = (s: string, enc: 'hex' | 'base64') => createHash('sha256').update(s).digest(enc);

/** The hash as the description in openapi/schemas/snapshot.yaml says to make it, written out apart from the code. */
function described(t: CompiledTable, digests: ReturnType<typeof secretDigests>): string {
  const route = (i: number) => `HTTPRoute/${t.routes[i].namespace}/${t.routes[i].name}`;
  const rule = (i: number) => `${route(t.rules[i].route)}#${t.rules[i].index}`;
  const list = (items: unknown[]) => {
    const chunks: string[][] = [];
    let chunk: string[] = [];
    items.forEach((x, i) => {
      const d = sha(JSON.stringify(x), 'base64');
      chunk.push(d);
      if (d.charCodeAt(0) % 16 === 0 || i === items.length - 1) { chunks.push(chunk); chunk = []; }
    });
    return sha(chunks.map((c) => sha(c.join('\t'), 'base64')).join('\t'), 'base64');
  };
  const out: string[] = ['table-parts/2', `\nH${sha(JSON.stringify({ ...t, listeners: [], routes: [], rules: [] }), 'base64')}`];
  out.push('\nlisteners', list(t.listeners.map((l) => {
    const head: Record<string, unknown> = { ...l };
    for (const k of ['httpRoutes', 'tcpRoutes']) if (head[k]) head[k] = [];
    return head;
  })));
  out.push('\nroutes', list(t.routes));
  out.push('\nrules', list(t.rules.map((r) => ({ ...r, route: route(r.route) }))));
  for (const l of t.listeners) {
    for (const k of ['httpRoutes', 'tcpRoutes'] as const) {
      const entries = (l as any)[k] as { rule: number; matchIndex?: number; hostname?: string }[] | undefined;
      if (!entries?.length) continue;
      out.push('\nE', l.name, k, list(entries.map((e) => ({ ...e, rule: rule(e.rule) }))));
    }
  }
  out.push(`\nS${canonicalJson(digests)}`);
  return sha(out.join('\t'), 'hex');
}

describe('the hash over a table\'s parts', () => {
  const digests = secretDigests([{ metadata: { namespace: 'infra', name: 'cert' }, data: { 'tls.crt': 'Y3J0' } }]);

  it('is what the documented recipe gives', () => {
    const t = table(['/a', '/b', '/c']);
    // long enough for its lists to be cut into chunks
    const long = table(Array.from({ length: 200 }, (_, i) => `/p${i}`));
    expect(tableHash(tableParts(long), digests)).toBe(described(long, digests));
    expect(tableHash(tableParts(t), digests)).toBe(described(t, digests));
    expect(tableHash(tableParts(t), [])).toBe(described(t, []));
  });

  it('is the same for the same table, whether its parts were made afresh or from an earlier version\'s', () => {
    const before = tableParts(table(['/a', '/b']));
    const t = table(['/a', '/b', '/c']);
    expect(tableHash(tableParts(t, before), digests)).toBe(tableHash(tableParts(JSON.parse(JSON.stringify(t))), digests));
  });

  it('moves with any change to the table, to its order, or to a Secret\'s data', () => {
    const base = tableHash(tableParts(table(['/a', '/b'])), digests);
    const others = [
      tableHash(tableParts(table(['/a', '/b', '/c'])), digests),
      tableHash(tableParts(table(['/b', '/a'])), digests),
      tableHash(tableParts(table(['/a', '/b'], { addresses: [{ type: 'IPAddress', value: '10.0.0.1' }] } as never)), digests),
      tableHash(tableParts(table(['/a', '/b'])), secretDigests([{ metadata: { namespace: 'infra', name: 'cert' }, data: { 'tls.crt': 'bmV3' } }])),
      tableHash(tableParts(table(['/a', '/b'])), []),
    ];
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
  });
});

describe('a list made from another by a few edits', () => {
  /** A small seeded generator: the same sequences on every run. */
  const rng = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);

  it('hashes as the same list made afresh, whatever the edits (only the chunks around them are cut anew)', () => {
    let checked = 0;
    const wholeBefore = hashWork.editedCutWhole;
    // 25 lists of up to 400 parts, and 3 of 12,000 to 16,000 (their 600 or more chunks are kept in blocks of 256)
    for (let seed = 1; seed <= 28; seed++) {
      const r = rng(seed);
      const large = seed > 25;
      let base = tableParts(table(Array.from({ length: large ? 12000 + Math.floor(r() * 4000) : 1 + Math.floor(r() * 400) }, (_, i) => `/p${i}`)));
      tableHash(base, []);
      for (let step = 0; step < 25; step++) {
        const ids = base.rules.ids.slice();
        const parts = new Map(base.rules.parts);
        const span = new SpanOfEdits();
        for (let e = 0, edits = 1 + Math.floor(r() * 4); e < edits; e++) {
          if (r() < 0.5 && ids.length) {
            const at = Math.floor(r() * ids.length);
            const gone = ids.splice(at, Math.min(1 + Math.floor(r() * 3), ids.length - at));
            for (const id of gone) parts.delete(id);
            span.remove(at, gone.length);
          } else {
            // at either end as often as anywhere between
            const where = r();
            const at = where < 0.15 ? 0 : where > 0.85 ? ids.length : Math.floor(r() * (ids.length + 1));
            const added = Array.from({ length: 1 + Math.floor(r() * 3) }, (_, k) => `HTTPRoute/apps/n${seed}-${step}-${e}-${k}#0`);
            for (const id of added) parts.set(id, part({ route: id.slice(0, -2), index: 0, filters: [], backends: [] }));
            ids.splice(at, 0, ...added);
            span.insert(at, added.length);
          }
        }
        const rules = { ids, parts };
        noteEdited(rules, span.of(base.rules)!);
        const next = { ...base, rules };
        const fresh = { ...base, rules: { ids: ids.slice(), parts: new Map(parts) } };
        expect(tableHash(next, []), `seed ${seed} step ${step}`).toBe(tableHash(fresh, []));
        base = next;
        checked++;
      }
    }
    expect(checked).toBe(28 * 25);
    // every edited list was hashed from its base's chunks, none cut whole again
    expect(hashWork.editedCutWhole).toBe(wholeBefore);
  });

  it('cuts anew only the chunks around each edit, however far apart the edits are', () => {
    const n = 4000;
    const base = tableParts(table(Array.from({ length: n }, (_, i) => `/p${i}`)));
    tableHash(base, []);
    const ids = base.rules.ids.slice();
    const parts = new Map(base.rules.parts);
    const span = new SpanOfEdits();
    // a route leaving one end of a long list and another joining at the other end, and one between
    for (const id of ids.splice(20, 2)) parts.delete(id);
    span.remove(20, 2);
    const added = ['HTTPRoute/apps/far#0', 'HTTPRoute/apps/mid#0'];
    for (const id of added) parts.set(id, part({ route: id.slice(0, -2), index: 0, filters: [], backends: [] }));
    ids.splice(3950, 0, added[0]);
    span.insert(3950, 1);
    ids.splice(2000, 0, added[1]);
    span.insert(2000, 1);
    const rules = { ids, parts };
    noteEdited(rules, span.of(base.rules)!);
    const cut = hashWork.chunksCut;
    const whole = hashWork.editedCutWhole;
    const hash = tableHash({ ...base, rules }, []);
    // a list of 4,000 parts has some 250 chunks; three edits remake a handful of them each
    expect(hashWork.chunksCut - cut).toBeLessThan(20);
    expect(hashWork.editedCutWhole).toBe(whole);
    expect(hash).toBe(tableHash({ ...base, rules: { ids: ids.slice(), parts: new Map(parts) } }, []));
  });
});

describe('lists made one from another, version after version', () => {
  it('do not keep the versions before them alive once hashed', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let base = tableParts(table(Array.from({ length: 50 }, (_, i) => `/p${i}`)));
    tableHash(base, []);
    const first = new WeakRef(base.rules);
    for (let step = 0; step < 5; step++) {
      const ids = base.rules.ids.slice();
      const parts = new Map(base.rules.parts);
      const id = `HTTPRoute/apps/v${step}#0`;
      parts.set(id, part({ route: id.slice(0, -2), index: 0, filters: [], backends: [] }));
      ids.splice(10, 0, id);
      const span = new SpanOfEdits();
      span.insert(10, 1);
      const rules = { ids, parts };
      noteEdited(rules, span.of(base.rules)!);
      base = { ...base, rules };
      tableHash(base, []);
    }
    // a WeakRef holds its target until the job that made it ends
    await new Promise((r) => setTimeout(r, 0));
    gc();
    expect(first.deref()).toBeUndefined();
  });
});
