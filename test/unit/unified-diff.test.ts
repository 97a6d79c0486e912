// The unified diff `switchyard history` prints: the shortest edit script between two texts, in the
// hunks `diff -u` prints, which `patch` applies to the old text to give the new.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { diffLines, unifiedDiff } from '../../src/cli/unified-diff';

describe('unifiedDiff', () => {
  it('prints hunks with three lines of context, as diff -u does', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'].join('\n') + '\n';
    const after = ['a', 'b', 'c', 'D', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm'].join('\n') + '\n';
    expect(unifiedDiff(before, after, 'x@1', 'x@2')).toBe([
      '--- x@1', '+++ x@2',
      '@@ -1,7 +1,7 @@', ' a', ' b', ' c', '-d', '+D', ' e', ' f', ' g',
      '@@ -10,3 +10,4 @@', ' j', ' k', ' l', '+m',
    ].join('\n') + '\n');
  });

  it('names an empty side by the line before it', () => {
    expect(unifiedDiff('', 'a\nb\n', '/dev/null', 'x@1')).toBe('--- /dev/null\n+++ x@1\n@@ -0,0 +1,2 @@\n+a\n+b\n');
    expect(unifiedDiff('a\n', '', 'x@1', '/dev/null')).toBe('--- x@1\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n');
  });

  it('is empty for equal texts', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n', 'x', 'y')).toBe('');
  });
});

describe('diffLines', () => {
  const text = fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 25 });
  it('keeps the old lines and the new ones, in order', () => {
    fc.assert(fc.property(text, text, (a, b) => {
      const ops = diffLines(a, b);
      expect(ops.filter((o) => o.op !== '+').map((o) => o.text)).toEqual(a);
      expect(ops.filter((o) => o.op !== '-').map((o) => o.text)).toEqual(b);
    }));
  });

  it('keeps as many lines as the longest common subsequence', () => {
    const lcs = (a: string[], b: string[]) => {
      const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
      for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) t[i][j] = a[i] === b[j] ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
      return t[0][0];
    };
    fc.assert(fc.property(text, text, (a, b) => {
      expect(diffLines(a, b).filter((o) => o.op === ' ').length).toBe(lcs(a, b));
    }));
  });
});
