import { describe, expect, it } from 'vitest';
import { sseFrame, sseLineFrame } from '../../src/adapters/http/sse';
import { secretDataPieces, withSecretData } from '../../src/core/snapshot/format';

describe('an event framed from its pieces', () => {
  it('is byte for byte the frame of the joined text', () => {
    const body = JSON.stringify({ version: 7, table: { hostnames: ['café.example', '例え.jp'], note: 'line\nbreak escaped', emoji: '🚦' } });
    const secrets = [{ namespace: 'infra', name: 'cert', digest: 'd', data: { 'tls.crt': 'Zm9v' } }] as never[];
    for (const ev of [{ id: 7, event: 'snapshot' }, { event: 'snapshot' }, {}]) {
      expect(sseLineFrame(ev, [{ text: body }]).toString('utf8')).toBe(sseFrame({ ...ev, data: body }));
      for (const s of [[], secrets]) {
        expect(sseLineFrame(ev, secretDataPieces(body, s)).toString('utf8')).toBe(sseFrame({ ...ev, data: withSecretData(body, s) }));
      }
    }
  });

  it('falls back to a data line per line when the text holds a line break', () => {
    const text = '{"a":\n1}';
    expect(sseLineFrame({ id: 1 }, secretDataPieces(text, [])).toString('utf8')).toBe(sseFrame({ id: 1, data: withSecretData(text, []) }));
    expect(sseLineFrame({ id: 1 }, [{ text }]).toString('utf8')).toBe('id: 1\ndata: {"a":\ndata: 1}\n\n');
  });

  it('refuses a body that does not end with its closing brace', () => {
    expect(() => secretDataPieces('{"a":1', [])).toThrow(/not a snapshot body/);
  });
});
