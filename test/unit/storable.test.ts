import { describe, expect, it } from 'vitest';
import { nestedDeeperThan, unstorableStrings } from '../../src/core/validate/storable';

const nested = (depth: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

describe('unstorableStrings', () => {
  it('finds nothing in a clean body, keys and values of every shape', () => {
    expect(unstorableStrings({ metadata: { name: 'r', labels: { 'app.kubernetes.io/name': 'x' } }, spec: { rules: [{ matches: [{ path: { value: '/é😀' } }] }], n: 1, b: true, z: null } })).toEqual([]);
  });

  it("names each value and key PostgreSQL refuses by its path, each object's keys before its values", () => {
    const body = JSON.parse('{"metadata":{"name":"a\\u0000b","labels":{"we ird":"\\ud800"}},"spec":{"rules":[{"x":"ok"},{"x":"\\udc00z"}],"bad\\u0000key":1}}');
    expect(unstorableStrings(body)).toEqual([
      { path: 'metadata.name', message: 'Invalid value: must not contain the NUL character (U+0000)' },
      { path: 'metadata.labels[we ird]', message: 'Invalid value: must not contain a lone surrogate (U+D800)' },
      { path: 'spec', message: 'Invalid key "bad\\u0000key": must not contain the NUL character (U+0000)' },
      { path: 'spec.rules[1].x', message: 'Invalid value: must not contain a lone surrogate (U+DC00)' },
    ]);
  });

  it('finds a key that is the only thing wrong, and a value that is', () => {
    expect(unstorableStrings({ spec: { rules: [{ ['k\u0000']: 'v' }] } })).toEqual([{ path: 'spec.rules[0]', message: 'Invalid key "k\\u0000": must not contain the NUL character (U+0000)' }]);
    expect(unstorableStrings({ spec: { rules: [{ k: ['ok', '\udfff'] }] } })).toEqual([{ path: 'spec.rules[0].k[1]', message: 'Invalid value: must not contain a lone surrogate (U+DFFF)' }]);
  });

  it('reads an own "__proto__" key as any other', () => {
    expect(unstorableStrings(JSON.parse('{"__proto__":{"x":"\\u0000"}}'))).toHaveLength(1);
    expect(unstorableStrings(JSON.parse('{"__proto__":{"x":"fine"}}'))).toEqual([]);
  });

  it('stops at the limit', () => {
    expect(unstorableStrings(Array.from({ length: 50 }, () => '\u0000'), 20)).toHaveLength(20);
  });
});

describe('nestedDeeperThan', () => {
  it('counts objects and arrays alike, up to the limit and one past it', () => {
    expect(nestedDeeperThan(nested(100), 100)).toBe(false);
    expect(nestedDeeperThan(nested(101), 100)).toBe(true);
    expect(nestedDeeperThan({ shallow: 1, deep: nested(101) }, 100)).toBe(true);
    expect(nestedDeeperThan('scalar', 0)).toBe(false);
  });

  it('follows an own "__proto__" key', () => {
    expect(nestedDeeperThan(JSON.parse(`{"__proto__":${JSON.stringify(nested(10))}}`), 5)).toBe(true);
  });
});
