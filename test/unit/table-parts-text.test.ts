import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { tableParts, tablePartsOfText, textPart, idsOf, type TableParts } from '../../src/core/snapshot/table-parts';
import { tableHash } from '../../src/core/snapshot/table-hash';
import { arrayElements, objectMembers, valueEnd } from '../../src/core/model/json-slices';
import type { CompiledTable } from '../../src/core/compile';

const CASES = join(__dirname, '../golden/cases');

/** Every list's ids and texts, the head's and the listeners', in order. */
function shape(p: TableParts) {
  const list = (l: TableParts['routes']) => [...idsOf(l)].map((id) => [id, l.parts.get(id)!.text]);
  return {
    head: p.head.text, listeners: list(p.listeners), routes: list(p.routes), rules: list(p.rules),
    entries: [...p.entries].map(([k, l]) => [k, list(l)]),
  };
}

function same(table: unknown): void {
  const text = JSON.stringify(table);
  const fromText = tablePartsOfText(text, textPart);
  const fromObjects = tableParts(JSON.parse(text) as CompiledTable, undefined, textPart);
  expect(shape(fromText)).toEqual(shape(fromObjects));
  expect(tableHash(fromText, [])).toBe(tableHash(fromObjects, []));
}

describe('a table\'s parts made from its text', () => {
  it('are the parts made from its objects, for every table of the golden cases', () => {
    let tables = 0;
    const visit = (v: unknown): void => {
      if (!v || typeof v !== 'object') return;
      if (!Array.isArray(v) && 'listeners' in v && 'routes' in v && 'rules' in v) {
        same(v);
        tables++;
        return;
      }
      for (const x of Object.values(v)) visit(x);
    };
    for (const f of readdirSync(CASES).filter((n) => n.endsWith('.out.yaml'))) {
      for (const d of parseAllDocuments(readFileSync(join(CASES, f), 'utf8'))) visit(d.toJS());
    }
    expect(tables).toBeGreaterThan(100);
  });

  it('keep what tableParts keeps: repeated ids, a list held as null, odd characters, a "__proto__" member', () => {
    const route = (name: string) => ({ kind: 'HTTPRoute', namespace: 'a', name, creationTimestamp: '2026-01-01T00:00:00Z', generation: 1 });
    const table = {
      format: 'switchyard.dev/compiled-table/v1', gateway: { namespace: 'infra', name: 'gw' }, ['__proto__']: { polluted: true },
      listeners: [
        { name: 'http', port: 80, protocol: 'HTTP', valid: true, httpRoutes: [
          { hostname: 'a.example', rule: 0, matchIndex: 0, match: { path: { type: 'Exact', value: '/"q"\\[]{},:' } } },
          { hostname: 'a.example', rule: 0, matchIndex: 0, match: { path: { type: 'Exact', value: '/again' } } },
          { hostname: 'ünï.example', rule: 1, matchIndex: 0, match: { headers: [{ name: 'x', value: '\u2028\ud800 🚀' }] } },
        ], grpcRoutes: null },
        { name: 'http', port: 8080, protocol: 'HTTP', valid: true, httpRoutes: [] },
        { name: 'tcp', port: 9000, protocol: 'TCP', valid: true, tcpRoutes: [{ rule: 1 }] },
      ],
      routes: [route('r'), route('r'), route('s')],
      rules: [
        { route: 0, index: 0, filters: [], backends: [] },
        { route: 2, index: 0, filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'k', value: '"route":9' }] } }], backends: [] },
      ],
      unattached: [],
    };
    same(JSON.parse(JSON.stringify(table)));
    const p = tablePartsOfText(JSON.stringify(table), textPart);
    expect(p.routes.ids).toEqual(['HTTPRoute/a/r', 'HTTPRoute/a/r|~2', 'HTTPRoute/a/s']);
    expect(JSON.parse(p.head.text).__proto__).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a text that is not a table', () => {
    expect(() => tablePartsOfText('{"format":"x"}', textPart)).toThrow(/no listeners, routes or rules/);
    expect(() => tablePartsOfText('{"listeners":[],"routes":[],"rules":[{"route":3,"index":0}]}', textPart)).toThrow(/names route 3/);
    expect(() => tablePartsOfText('{"listeners":[],"routes":[', textPart)).toThrow(SyntaxError);
  });
});

describe('JSON walked by its structure', () => {
  it('finds members and elements past strings that hold brackets, quotes and escapes', () => {
    const v = { 'a"b': ['x]', { y: '}{' }, 1.5e-7, null, true], '\\': { '': [] }, z: 'ünï\n' };
    const t = JSON.stringify(v);
    const members = [...objectMembers(t, 0)].map(([k, f, to]) => [k, JSON.parse(t.slice(f, to))]);
    expect(members).toEqual(Object.entries(v));
    const [, from] = [...objectMembers(t, 0)][0];
    expect([...arrayElements(t, from)].map(([f, to]) => JSON.parse(t.slice(f, to)))).toEqual(v['a"b']);
    expect(valueEnd(t, 0)).toBe(t.length);
    expect([...objectMembers('{}', 0)]).toEqual([]);
    expect([...arrayElements('[]', 0)]).toEqual([]);
  });

  it('throws on text that is not JSON as JSON.stringify writes it', () => {
    for (const bad of ['{"a":1', '{"a" :1}', '{a:1}', '{"a":1;"b":2}', '"open', '[1 2]']) {
      expect(() => [...(bad.startsWith('[') ? arrayElements(bad, 0) : objectMembers(bad, 0))], bad).toThrow(SyntaxError);
    }
  });
});
