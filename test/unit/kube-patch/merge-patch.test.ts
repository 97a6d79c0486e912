// RFC 7386 (JSON Merge Patch): the examples of appendix A written out as cases, the property that
// kubectl's client-side apply of a Gateway API kind relies on (a patch made of the changes and of
// nulls for what went away takes the live object to the wanted one), and the answers of applyPatch.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mergePatch } from '../../../src/core/objects/merge-patch';
import { applyPatch } from '../../../src/core/kube-patch';

describe('RFC 7386 appendix A', () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, want] of cases)
    it(`${JSON.stringify(target)} + ${JSON.stringify(patch)}`, () => expect(mergePatch(target, patch)).toEqual(want));
});

// What kubectl computes for a CRD kind: the changes from live to wanted, nulls for removed keys.
function diff(from: unknown, to: unknown): unknown {
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isMap(from) || !isMap(to)) return to;
  const out: Record<string, unknown> = {};
  const set = (k: string, v: unknown) => Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
  for (const k of Object.keys(from)) if (!own(to, k)) set(k, null);
  for (const k of Object.keys(to)) if (!own(from, k) || JSON.stringify(from[k]) !== JSON.stringify(to[k])) set(k, diff(own(from, k) ? from[k] : undefined, to[k]));
  return out;
}

const noNulls = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.integer(), fc.string({ maxLength: 3 }), fc.boolean(), fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', '__proto__'), tie('value'), { maxKeys: 3 })),
})).value;
const object = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), noNulls, { maxKeys: 4 });

describe('properties', () => {
  it('the patch of the differences takes any object to any other, and changes neither', () => {
    fc.assert(fc.property(object, object, (from, to) => {
      const before = JSON.stringify(from);
      expect(mergePatch(from, diff(from, to))).toEqual(to);
      expect(JSON.stringify(from)).toBe(before);
    }), { numRuns: 2000 });
  });
  it('an empty patch changes nothing, and a patch applied twice is the patch applied once', () => {
    fc.assert(fc.property(object, object, (target, patch) => {
      expect(mergePatch(target, {})).toEqual(target);
      const once = mergePatch(target, patch);
      expect(mergePatch(once, patch)).toEqual(once);
    }), { numRuns: 2000 });
  });
});

describe('applyPatch with application/merge-patch+json', () => {
  const gw = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'g', namespace: 'n', labels: { a: '1', b: '2' } },
    spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }, { name: 'https', port: 443, protocol: 'HTTPS' }] } };
  const opts = { kind: 'Gateway', apiVersion: 'gateway.networking.k8s.io/v1' };
  it('merges maps and replaces lists whole, even the listeners a strategic patch would merge', () => {
    const r = applyPatch(gw, { metadata: { labels: { a: null, c: '3' } }, spec: { listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] } }, 'application/merge-patch+json', opts);
    expect(r).toEqual({ ok: true, object: { ...gw, metadata: { name: 'g', namespace: 'n', labels: { b: '2', c: '3' } }, spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] } } });
  });
  it('a body that is not an object is 400', () => {
    expect(applyPatch(gw, '[1]', 'application/merge-patch+json', opts)).toMatchObject({ ok: false, status: 400, reason: 'BadRequest' });
    expect(applyPatch(gw, 'null', 'application/merge-patch+json', opts)).toMatchObject({ ok: false, status: 400 });
    expect(applyPatch(gw, '', 'application/merge-patch+json', opts)).toMatchObject({ ok: false, status: 400 });
  });
  it('a body nested deeper than any object may be is 400, not a stack overflow', () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    expect(applyPatch(gw, deep, 'application/merge-patch+json', opts)).toMatchObject({ ok: false, status: 400, message: expect.stringMatching(/nested/) });
  });
  it('an unknown media type is 415, listing what the kind accepts', () => {
    expect(applyPatch(gw, {}, 'application/json', opts)).toEqual({ ok: false, status: 415, reason: 'UnsupportedMediaType',
      message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml' });
  });
});
