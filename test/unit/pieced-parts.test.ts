import { describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { textPart } from '../../src/core/snapshot/table-parts';
import { entryPart, rulePart, ruleRouteOf } from '../../src/core/snapshot/pieced-parts';
import { partDigest } from '../../src/core/snapshot/table-hash';

const backends = (svc: string, endpoints: number) => [{
  group: '', kind: 'Service', namespace: 'team-0', name: svc, port: 80, weight: 1, valid: true,
  endpoints: Array.from({ length: endpoints }, (_, i) => ({ address: `10.0.${Math.floor(i / 250)}.${i % 250}`, port: 8080 })),
}];

describe('parts held in pieces (the worker\'s rules and entries)', () => {
  const rules: Record<string, unknown>[] = [
    { route: 'HTTPRoute/team-0/r-1', index: 0, filters: [], backends: backends('svc-1', 3) },
    { route: 'HTTPRoute/team-0/r-1', index: 1, name: 'named', filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x', value: 'a,"backends":[]' }] } }], backends: [], timeouts: { requestMs: 100 } },
    { route: 'HTTPRoute/team-0/r-2', index: 0, filters: [], backends: backends('svc-1', 3), retry: { codes: [503], attempts: 2 }, invalid: { reason: 'UnsupportedValue', message: 'a "quoted" \\ message ünï' } },
    { route: 'TCPRoute/team-0/t', index: 0, backends: [] },
    { route: 'HTTPRoute/team-0/r-3', index: 0, filters: [] },
  ];
  const entries: Record<string, unknown>[] = [
    { hostname: 'h0.example.com', rule: 'HTTPRoute/team-0/r-1#0', matchIndex: 0, match: { path: { type: 'Exact', value: '/"rule":"x"' } } },
    { rule: 'TCPRoute/team-0/t#0' },
    { hostname: 'a.example.com', rule: 'TLSRoute/team-0/t#0' },
    { rule: 'odd"id#0', matchIndex: 1 },
    { hostname: '*.example.com', matchIndex: 0 },
  ];

  it('reads back the text, item and digest of the whole part, byte for byte', () => {
    for (const r of rules) {
      const p = rulePart(r, r.route as string);
      expect(p.text).toBe(JSON.stringify(r));
      expect(p.item).toEqual(r);
      expect(partDigest(p)).toBe(partDigest(textPart(r)));
      expect(ruleRouteOf(p)).toBe(r.route);
    }
    for (const e of entries) {
      const p = entryPart(e);
      expect(p.text).toBe(JSON.stringify(e));
      expect(p.item).toEqual(e);
      expect(partDigest(p)).toBe(partDigest(textPart(e)));
    }
  });

  it('holds the backends of many rules, and the start of many entries, once', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const n = 20_000;
    const before = heap();
    // 200 endpoints: some 9 KB of backends a rule, 180 MB were each rule to hold its own
    const made = Array.from({ length: n }, (_, i) => rulePart({ route: `HTTPRoute/team-0/r-${i}`, index: 0, filters: [], backends: backends(`svc-${i % 10}`, 200) }, `HTTPRoute/team-0/r-${i}`));
    const hostname = `h.${'x'.repeat(2000)}.example.com`;
    const ids = Array.from({ length: n }, (_, i) => `HTTPRoute/team-0/r-${i}#0`);
    const madeEntries = ids.map((rule) => entryPart({ hostname, rule, matchIndex: 0 }));
    const grown = heap() - before;
    expect(made).toHaveLength(n);
    expect(madeEntries).toHaveLength(n);
    // the rules' own pieces and the entries' after the rule: some 200 bytes each
    expect(grown).toBeLessThan(20 * 1024 * 1024);
  });
});
