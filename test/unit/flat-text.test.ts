import { describe, expect, it } from 'vitest';
import { flatText } from '../../src/core/model/flat-text';

describe('flatText', () => {
  it('gives back the same text, whatever its characters', () => {
    const texts = [
      '', 'short', JSON.stringify({ route: 'HTTPRoute/team-1/r-1', index: 0, matches: [{ path: { type: 'PathPrefix', value: '/a' } }] }),
      '\uFEFF{"a":1} begins with a byte-order mark', JSON.stringify({ header: 'ünïcødé 名前 🚀', lone: '\uD800' }),
      'x'.repeat(100_000),
    ];
    for (const t of texts) expect(flatText(t)).toBe(t);
  });

  it('keeps random JSON texts byte for byte', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let k = 0; k < 500; k++) {
      const chars = Array.from({ length: Math.floor(rnd() * 64) }, () => String.fromCodePoint(Math.floor(rnd() * (rnd() < 0.8 ? 128 : 0x10ffff))));
      const t = JSON.stringify({ k, s: chars.join('') });
      expect(flatText(t)).toBe(t);
    }
  });
});
