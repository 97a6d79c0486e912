import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, deepEqual } from '../../src/core/objects/canonical';

// deepEqual walks instead of serializing; it must agree with comparing canonical JSON exactly.
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, undefined, true, false, 0, -0, 1, NaN, Infinity), fc.integer(), fc.string({ maxLength: 3 }),
    fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(fc.constantFrom('a', 'b', 'c', '__proto__', 'constructor'), tie('value'), { maxKeys: 4 })),
})).value;

function reordered(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reordered);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).reverse()) Object.defineProperty(out, k, { value: reordered((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

describe('deepEqual', () => {
  it('agrees with canonical JSON on any two values', () => {
    fc.assert(fc.property(json, json, (a, b) => deepEqual(a, b) === (canonicalJson(a) === canonicalJson(b))), { numRuns: 5000 });
  });
  it('ignores key order and undefined members, and tells apart what JSON tells apart', () => {
    fc.assert(fc.property(json, (a) => deepEqual(a, reordered(a))), { numRuns: 2000 });
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual([undefined], [null])).toBe(true);
    expect(deepEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(deepEqual({ a: null }, {})).toBe(false);
    expect(deepEqual('1', 1)).toBe(false);
  });
});
