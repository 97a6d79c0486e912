import { describe, expect, it } from 'vitest';
import { duplicateKeys } from '../../src/core/validate/duplicate-keys';

const dups = (text: string) => duplicateKeys(text, JSON.parse(text));

describe('duplicateKeys', () => {
  it('finds none in a body without duplicates, whatever its strings hold', () => {
    expect(dups('{"a":1,"b":{"c":[{"d":"x:y"},{"d":"\\"e\\":1"}]}}')).toEqual([]);
    expect(dups('[1,2,{"a":"\\\\"}]')).toEqual([]);
    expect(dups('"x"')).toEqual([]);
    expect(dups('{}')).toEqual([]);
  });

  it('names each duplicated key by its path, at any depth, once', () => {
    expect(dups('{"metadata":{"name":"a","name":"b"}}')).toEqual(['metadata.name']);
    expect(dups('{"kind":"A","kind":"A"}')).toEqual(['kind']);
    expect(dups('{"spec":{"rules":[{"matches":[],"x":1},{"matches":[], "matches" : [ ] , "x":{"y":1,"y":2,"y":3}}]}}'))
      .toEqual(['spec.rules[1].matches', 'spec.rules[1].x.y']);
    expect(dups('[{"a":1,"a":2}]')).toEqual(['[0].a']);
  });

  it('reads keys with escapes as the keys they are', () => {
    expect(dups('{"a\\u0062":1,"ab":2}')).toEqual(['ab']);
    expect(dups('{"a\\"":{"b:":1,"b:":2}}')).toEqual(['a".b:']);
  });

  it('counts right around colons and backslashes in strings', () => {
    expect(dups('{"a":"x:y","a":1}')).toEqual(['a']);
    expect(dups('{"u":"http://a:80/","v":"b\\\\","w":{"k:":"\\":"}}')).toEqual([]);
    expect(dups('{"a\\\\":"b:","a\\\\":1}')).toEqual(['a\\']);
    expect(dups(JSON.stringify({ a: { b: [1, { c: 'd:e' }] } }, null, 2).replace('"b"', '"b": 0, "b"'))).toEqual(['a.b']);
  });

  it('is not fooled by a duplicate hidden in a string, or by numbers and literals', () => {
    expect(dups('{"a":"{\\"b\\":1,\\"b\\":2}","n":-1.5e3,"t":true,"f":false,"z":null}')).toEqual([]);
    expect(dups('{"n":-1.5e3,"t":true,"n":null}')).toEqual(['n']);
  });
});
