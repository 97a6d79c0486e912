// Random and mutated objects thrown at validateObject: it never throws, never hangs, never mutates
// its input, answers with well-formed errors, and answers the same way twice.
import { readFileSync } from 'node:fs';
import { validationDir } from '../support/corpora';
import { join } from 'node:path';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/core/model/kinds';
import { validateObject } from '../../src/core/validate';
import openapi from '../../src/generated/openapi.json';

/* eslint-disable @typescript-eslint/no-explicit-any */
const dir = validationDir();
const corpus: any[] = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')).map((c: any) => c.object);

function check(input: unknown): void {
  const before = safeStringify(input);
  // how long validation takes is bench:validate's to measure; a hang ends the test at its time-out
  const a = validateObject(input);
  expect(Array.isArray(a.errors)).toBe(true);
  for (const e of a.errors) {
    expect(typeof e.path).toBe('string');
    expect(typeof e.message).toBe('string');
    expect(e.message.length).toBeGreaterThan(0);
    expect(e.message.startsWith('internal validation error'), e.message).toBe(false);
  }
  expect(safeStringify(input), 'input was mutated').toBe(before);
  const b = validateObject(input);
  expect(b.errors).toEqual(a.errors);
  expect(safeStringify(b.object)).toBe(safeStringify(a.object));
  expect(Object.prototype.hasOwnProperty.call({}, 'polluted')).toBe(false);
  expect(({} as any).polluted).toBeUndefined();
}

function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'undefined';
  } catch {
    return '<unserializable>';
  }
}

function put(o: any, k: string | number, v: any): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** every path (as segments) to a value inside `v` */
function paths(v: any, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...prefix, i], out));
  else if (v && typeof v === 'object') for (const k of Object.keys(v)) paths(v[k], [...prefix, k], out);
  return out;
}

function nest(depth: number, kind: 'array' | 'object'): any {
  let v: any = 'leaf';
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
}

const hostile = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 0, 1e308, 65536, 2 ** 31),
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constant('x'.repeat(200_000)),
  fc.constant('a'.repeat(5000) + '\u0001'),
  fc.constant('a.'.repeat(3000) + '!'),
  fc.constant([]),
  fc.constant({}),
  fc.constant(nest(500, 'array')),
  fc.constant(nest(500, 'object')),
  fc.constant(Array.from({ length: 5000 }, (_, i) => ({ name: `n${i % 3}` }))),
  fc.constant(JSON.parse('{"__proto__": {"polluted": true}}')),
  fc.constant(JSON.parse('{"constructor": {"prototype": {"polluted": true}}}')),
  fc.jsonValue({ maxDepth: 4 }),
);

type Mutation = 'replace' | 'delete' | 'addKey' | 'duplicate';

function mutate(obj: any, pathIndex: number, how: Mutation, value: any, key: string): any {
  const copy = JSON.parse(JSON.stringify(obj));
  const all = paths(copy);
  const path = all[pathIndex % all.length];
  if (path.length === 0) return how === 'replace' ? value : copy;
  let parent = copy;
  for (const s of path.slice(0, -1)) parent = parent[s];
  const last = path[path.length - 1];
  switch (how) {
    case 'replace':
      put(parent, last, value);
      break;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      break;
    case 'addKey': {
      const target = parent[last];
      if (target && typeof target === 'object' && !Array.isArray(target)) put(target, key, value);
      else put(parent, last, value);
      break;
    }
    case 'duplicate':
      if (Array.isArray(parent)) parent.push(JSON.parse(JSON.stringify(parent[last as number])));
      break;
  }
  return copy;
}

const kindHeader = fc.constantFrom(
  ...KINDS.flatMap((k) => Object.keys(k.versions).map((apiVersion) => ({ apiVersion, kind: k.kind }))),
  { apiVersion: 'v1', kind: 'Pod' },
  { apiVersion: 'gateway.networking.k8s.io/v9', kind: 'Gateway' },
);

describe('validation fuzz', () => {
  it('random values of any shape', () => {
    fc.assert(fc.property(fc.anything({ maxDepth: 5 }), (v) => check(v)), { numRuns: 300 });
  });

  it('objects of every kind with random content', () => {
    fc.assert(
      fc.property(kindHeader, fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 5 })), hostile, (h, body, spec) =>
        check({ ...body, ...h, metadata: { name: 'x', namespace: 'default' }, spec }),
      ),
      { numRuns: 300 },
    );
  });

  it('mutations of corpus objects', () => {
    fc.assert(
      fc.property(
        fc.nat(corpus.length - 1),
        fc.nat(),
        fc.constantFrom<Mutation>('replace', 'replace', 'delete', 'addKey', 'duplicate'),
        hostile,
        fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'foo', ''),
        (i, p, how, value, key) => check(mutate(corpus[i], p, how, value, key)),
      ),
      { numRuns: 1500 },
    );
  });

  it('extreme nesting and size', () => {
    const base = corpus.find((o) => o.kind === 'HTTPRoute');
    check({ ...base, spec: { ...base.spec, extra: nest(100_000, 'array') } });
    check({ ...base, metadata: { ...base.metadata, annotations: { deep: nest(100_000, 'object') } } });
    check({ ...base, spec: { ...base.spec, hostnames: Array.from({ length: 100_000 }, () => 'a.example.com') } });
    check({ ...base, spec: { ...base.spec, rules: Array.from({ length: 20_000 }, () => base.spec.rules?.[0] ?? {}) } });
    check({ ...base, metadata: { ...base.metadata, name: 'a'.repeat(1_000_000) } });
  });

  it('every corpus object, mutated by one bad type at each path', () => {
    for (const obj of corpus.slice(0, 60)) {
      const n = paths(obj).length;
      for (let p = 0; p < n; p++) check(mutate(obj, p, 'replace', p % 2 ? 'str' : 7, ''));
    }
  });

  it('re2js (used for long or hostile input) and the native engine agree on every schema pattern', () => {
    const patterns = new Set<string>();
    JSON.stringify(openapi, (k, v) => {
      if (k === 'pattern' && typeof v === 'string') patterns.add(v);
      return v;
    });
    expect(patterns.size).toBeGreaterThan(10);
    const alphabet = fc.constantFrom(...'aZ09-._/*:%!~ \t#@$&\'()+,;=|^`x.Hostname'.split(''), '\t', 'é', 'IPAddress', 'https://');
    for (const p of patterns) {
      const native = new RegExp(p, 'u');
      const re2 = RE2JS.compile(p);
      fc.assert(
        fc.property(fc.array(alphabet, { maxLength: 12 }), (parts) => {
          const s = parts.join('');
          if (/[+*]\)[*+?{]/.test(p) && s.length > 20) return; // exponential natively; re2js is the one used
          expect(re2.test(s), `${p} on ${JSON.stringify(s)}`).toBe(native.test(s));
        }),
        { numRuns: 200 },
      );
    }
  });
});
