// RFC 6902 (JSON Patch) and RFC 6901 (JSON Pointer): the examples of the RFCs' texts, written out
// here as cases, then properties over random documents, then the answers applyPatch gives.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyJsonPatch, readJsonPatch } from '../../../src/core/kube-patch/json-patch';
import { PatchError } from '../../../src/core/kube-patch/result';
import { applyPatch } from '../../../src/core/kube-patch';

const run = (doc: unknown, patch: unknown): unknown => applyJsonPatch(doc, readJsonPatch(patch));
const failure = (doc: unknown, patch: unknown) => {
  try {
    run(doc, patch);
  } catch (e) {
    if (e instanceof PatchError) return e.failure;
    throw e;
  }
  throw new Error('the patch applied');
};

describe('RFC 6902 appendix A', () => {
  const cases: [string, unknown, unknown[], unknown][] = [
    ['adding an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
    ['adding an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
    ['removing an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
    ['removing an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
    ['replacing a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
    ['moving a value', { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } }],
    ['moving an array element', { foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }], { foo: ['all', 'cows', 'eat', 'grass'] }],
    ['testing a value: success', { baz: 'qux', foo: ['a', 2, 'c'] }, [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }],
      { baz: 'qux', foo: ['a', 2, 'c'] }],
    ['adding a nested member object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } }],
    ['ignoring unrecognized elements', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], { foo: 'bar', baz: 'qux' }],
    ['~ escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
    ['adding an array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
  ];
  for (const [name, doc, patch, want] of cases) it(name, () => expect(run(doc, patch)).toEqual(want));

  it('testing a value: error', () => expect(failure({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]).status).toBe(422));
  it('adding to a nonexistent target', () => expect(failure({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]).status).toBe(422));
  it('comparing strings and numbers', () => expect(failure({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]).status).toBe(422));
});

describe('RFC 6902 section 4', () => {
  it('add replaces an existing member, and "" replaces the whole document', () => {
    expect(run({ a: 1 }, [{ op: 'add', path: '/a', value: 2 }])).toEqual({ a: 2 });
    expect(run({ a: 1 }, [{ op: 'add', path: '', value: { b: 1 } }])).toEqual({ b: 1 });
    expect(run({ a: 1 }, [{ op: 'replace', path: '', value: [1] }])).toEqual([1]);
  });
  it('add at the array length appends; beyond it fails', () => {
    expect(run([1, 2], [{ op: 'add', path: '/2', value: 3 }])).toEqual([1, 2, 3]);
    expect(failure([1, 2], [{ op: 'add', path: '/3', value: 3 }]).message).toMatch(/out of bounds/);
  });
  it('remove needs the target to exist, and so does replace in an array and below a missing parent', () => {
    expect(failure({ a: 1 }, [{ op: 'remove', path: '/b' }]).status).toBe(422);
    expect(failure([1], [{ op: 'remove', path: '/1' }]).status).toBe(422);
    expect(failure([1], [{ op: 'remove', path: '/-' }]).status).toBe(422);
    expect(failure([1], [{ op: 'replace', path: '/1', value: 2 }]).status).toBe(422);
    expect(failure({ a: 1 }, [{ op: 'replace', path: '/b/c', value: 1 }]).status).toBe(422);
    expect(failure({ a: 1 }, [{ op: 'move', from: '/b', path: '/c' }]).status).toBe(422);
  });
  it('array indexes are digits', () => {
    expect(failure([1, 2], [{ op: 'remove', path: '/x' }]).message).toMatch(/not an array index/);
    expect(failure([1, 2], [{ op: 'remove', path: '/1.0' }]).message).toMatch(/not an array index/);
    expect(failure({ a: [1] }, [{ op: 'test', path: '/a/x', value: 1 }]).status).toBe(422);
  });
});

// Beyond the RFC, what kube-apiserver's JSON patch library accepts (each checked with kubectl patch
// --local --type json, the same library): a patch that works there works here.
describe('as kube-apiserver patches', () => {
  it('negative indexes count from the end; for add, -1 appends', () => {
    expect(run(['x', 'z'], [{ op: 'add', path: '/-1', value: 'y' }])).toEqual(['x', 'z', 'y']);
    expect(run(['x', 'z'], [{ op: 'add', path: '/-2', value: 'y' }])).toEqual(['x', 'y', 'z']);
    expect(run(['x', 'z'], [{ op: 'add', path: '/-3', value: 'y' }])).toEqual(['y', 'x', 'z']);
    expect(run(['x', 'z'], [{ op: 'remove', path: '/-1' }])).toEqual(['x']);
    expect(run(['x', 'z'], [{ op: 'replace', path: '/-1', value: 'y' }])).toEqual(['x', 'y']);
    expect(run(['x', 'z'], [{ op: 'test', path: '/-1', value: 'z' }])).toEqual(['x', 'z']);
    expect(failure(['x'], [{ op: 'add', path: '/-3', value: 'y' }]).status).toBe(422);
  });
  it('leading zeros are read as the number', () => {
    expect(run(['x', 'z'], [{ op: 'add', path: '/01', value: 'y' }])).toEqual(['x', 'y', 'z']);
  });
  it('replace of a missing member adds it; test of a missing member against null succeeds; copy of one copies null', () => {
    expect(run({ a: 1 }, [{ op: 'replace', path: '/b', value: 2 }])).toEqual({ a: 1, b: 2 });
    expect(run({ a: 1 }, [{ op: 'test', path: '/b', value: null }])).toEqual({ a: 1 });
    expect(failure({ a: 1 }, [{ op: 'test', path: '/b', value: 'x' }]).status).toBe(422);
    expect(run({ a: 1 }, [{ op: 'copy', from: '/b', path: '/c' }])).toEqual({ a: 1, c: null });
  });
  it('move may not move a value into its own child; onto itself it changes nothing', () => {
    expect(failure({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]).message).toMatch(/parent/);
    expect(run({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a' }])).toEqual({ a: { b: 1 } });
  });
  it('copy copies deeply: changing the copy leaves the source', () => {
    expect(run({ a: { b: [1] } }, [{ op: 'copy', from: '/a', path: '/c' }, { op: 'add', path: '/c/b/-', value: 2 }])).toEqual({ a: { b: [1] }, c: { b: [1, 2] } });
  });
  it('test compares deeply, objects in any key order, arrays in order', () => {
    expect(run({ a: { x: 1, y: [1, 2] } }, [{ op: 'test', path: '/a', value: { y: [1, 2], x: 1 } }])).toBeTruthy();
    expect(failure({ a: [1, 2] }, [{ op: 'test', path: '/a', value: [2, 1] }]).status).toBe(422);
    expect(failure({ a: null }, [{ op: 'test', path: '/a', value: false }]).status).toBe(422);
  });
  it('a patch that fails half-way leaves the document as it was', () => {
    const doc = { a: 1, list: [1] };
    failure(doc, [{ op: 'add', path: '/b', value: 2 }, { op: 'add', path: '/list/-', value: 2 }, { op: 'test', path: '/a', value: 2 }]);
    expect(doc).toEqual({ a: 1, list: [1] });
  });
  it('operations that cannot be read are 400, and name the operation', () => {
    const cases: [unknown, RegExp][] = [
      [{ op: 'add', path: '/a', value: 1 }, /array/],
      [[1], /operation 0: must be an object/],
      [[{ path: '/a' }], /"op" must be/],
      [[{ op: 'frobnicate', path: '/a' }], /"op" must be/],
      [[{ op: 'add', value: 1 }], /"path" must be a string/],
      [[{ op: 'add', path: '/a' }], /needs a "value"/],
      [[{ op: 'test', path: '/a' }], /needs a "value"/],
      [[{ op: 'move', path: '/a' }], /needs a "from"/],
      [[{ op: 'copy', path: '/a', from: 1 }], /needs a "from"/],
      [[{ op: 'remove', path: 'a' }], /must be empty or start with "\/"/],
      [[{ op: 'remove', path: '/a~2' }], /~0 or ~1/],
      [[{ op: 'remove', path: '/a~' }], /~0 or ~1/],
    ];
    for (const [patch, message] of cases) {
      const f = (() => {
        try {
          readJsonPatch(patch);
        } catch (e) {
          return (e as PatchError).failure;
        }
        return undefined;
      })();
      expect(f?.status, JSON.stringify(patch)).toBe(400);
      expect(f?.message).toMatch(message);
    }
  });
  it('a "__proto__" member is an ordinary member', () => {
    const out = run({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('RFC 6901 section 5', () => {
  const doc = { foo: ['bar', 'baz'], '': 0, 'a/b': 1, 'c%d': 2, 'e^f': 3, 'g|h': 4, 'i\\j': 5, 'k"l': 6, ' ': 7, 'm~n': 8 };
  const pointers: [string, unknown][] = [
    ['', doc], ['/foo', ['bar', 'baz']], ['/foo/0', 'bar'], ['/', 0], ['/a~1b', 1], ['/c%d', 2], ['/e^f', 3],
    ['/g|h', 4], ['/i\\j', 5], ['/k"l', 6], ['/ ', 7], ['/m~0n', 8],
  ];
  for (const [pointer, value] of pointers) it(`${JSON.stringify(pointer)} points at ${JSON.stringify(value).slice(0, 20)}`, () => {
    expect(run(doc, [{ op: 'test', path: pointer, value }])).toEqual(doc);
    expect(failure(doc, [{ op: 'test', path: pointer, value: 'something else' }]).status).toBe(422);
  });
});

// Random documents and paths into them.
const scalar = fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.boolean(), fc.constant(null));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('a', 'b', '~', '/', 'a/b', '~1', ''), tie('value'), { maxKeys: 4 })),
})).value;
const escape = (t: string) => t.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every pointer to a value inside the document, the document itself included. */
function pointersOf(v: unknown, prefix = ''): string[] {
  const inner = Array.isArray(v) ? v.flatMap((x, i) => pointersOf(x, `${prefix}/${i}`))
    : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => pointersOf(x, `${prefix}/${escape(k)}`)) : [];
  return [prefix, ...inner];
}

const docAndPointer = json.chain((doc) => fc.constantFrom(...pointersOf(doc)).map((p) => ({ doc, p })));

describe('properties', () => {
  it('test succeeds at every pointer with the value found there by a copy, and fails for another value', () => {
    fc.assert(fc.property(docAndPointer, ({ doc, p }) => {
      const copied = run({ doc }, [{ op: 'copy', from: `/doc${p}`, path: '/found' }]) as { found: unknown };
      expect(run(doc, [{ op: 'test', path: p, value: copied.found }])).toEqual(doc);
      expect(failure(doc, [{ op: 'test', path: p, value: { unlikely: [copied.found] } }]).status).toBe(422);
    }), { numRuns: 1500 });
  });
  it('remove then add of the same value at the same place gives the document back', () => {
    fc.assert(fc.property(docAndPointer.filter(({ p }) => p !== ''), ({ doc, p }) => {
      const copied = run({ doc }, [{ op: 'copy', from: `/doc${p}`, path: '/found' }]) as { found: unknown };
      expect(run(doc, [{ op: 'remove', path: p }, { op: 'add', path: p, value: copied.found }])).toEqual(doc);
    }), { numRuns: 1500 });
  });
  it('replace then test the new value; the document given is never changed', () => {
    fc.assert(fc.property(docAndPointer, json, ({ doc, p }, value) => {
      const before = JSON.stringify(doc);
      const out = run(doc, [{ op: 'replace', path: p, value }]);
      expect(run(out, [{ op: 'test', path: p, value }])).toEqual(out);
      expect(JSON.stringify(doc)).toBe(before);
    }), { numRuns: 1500 });
  });
});

describe('applyPatch with application/json-patch+json', () => {
  const route = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'n', labels: { 'app.kubernetes.io/name': 'x' }, resourceVersion: '3' }, spec: { hostnames: ['a.example'] } };
  const opts = { kind: 'HTTPRoute', apiVersion: 'gateway.networking.k8s.io/v1' };
  it('applies a raw body, ~1 in a label key included, and keeps the rest', () => {
    const body = JSON.stringify([{ op: 'replace', path: '/metadata/labels/app.kubernetes.io~1name', value: 'y' }, { op: 'add', path: '/spec/hostnames/-', value: 'b.example' }]);
    const r = applyPatch(route, body, 'application/json-patch+json', opts);
    expect(r).toEqual({ ok: true, object: { ...route, metadata: { ...route.metadata, labels: { 'app.kubernetes.io/name': 'y' } }, spec: { hostnames: ['a.example', 'b.example'] } } });
  });
  it('a failed test is 422 Invalid; unreadable JSON is 400 BadRequest', () => {
    expect(applyPatch(route, [{ op: 'test', path: '/metadata/resourceVersion', value: '2' }], 'application/json-patch+json', opts))
      .toMatchObject({ ok: false, status: 422, reason: 'Invalid' });
    expect(applyPatch(route, '[{"op":', 'application/json-patch+json', opts)).toMatchObject({ ok: false, status: 400, reason: 'BadRequest' });
    expect(applyPatch(route, Buffer.from('{}'), 'application/json-patch+json', opts)).toMatchObject({ ok: false, status: 400 });
  });
  it('a patch may not change the kind or the apiVersion, nor leave something other than an object', () => {
    expect(applyPatch(route, [{ op: 'replace', path: '/kind', value: 'GRPCRoute' }], 'application/json-patch+json', opts)).toMatchObject({ status: 400, message: expect.stringMatching(/kind/) });
    expect(applyPatch(route, [{ op: 'remove', path: '/apiVersion' }], 'application/json-patch+json', opts)).toMatchObject({ status: 400, message: expect.stringMatching(/API version/) });
    expect(applyPatch(route, [{ op: 'replace', path: '', value: [] }], 'application/json-patch+json', opts)).toMatchObject({ status: 400 });
  });
  it('force is for apply only; there must be an object to patch', () => {
    expect(applyPatch(route, [], 'application/json-patch+json', { ...opts, force: true })).toMatchObject({ status: 422, causes: [{ field: 'force' }] });
    expect(applyPatch(undefined, [], 'application/json-patch+json', opts)).toMatchObject({ status: 400 });
  });
  it('patches the version of the request: a v1beta1 object read through v1 is patched as v1', () => {
    const r = applyPatch({ ...route, apiVersion: 'gateway.networking.k8s.io/v1beta1' }, [], 'application/json-patch+json; charset=utf-8', opts);
    expect(r).toMatchObject({ ok: true, object: { apiVersion: 'gateway.networking.k8s.io/v1' } });
  });
});
