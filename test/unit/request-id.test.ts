// Which client-sent ids and trace contexts are kept, and which requests the access log writes.
import { describe, expect, it } from 'vitest';
import { saneRequestId, validTraceparent } from '../../src/adapters/http/request-id';
import { levelFor } from '../../src/adapters/http/access-log';

describe('X-Request-Id', () => {
  it('keeps short plain ids', () => {
    for (const id of ['abc', 'f47ac10b-58cc-4372-a567-0e02b2c3d479', 'req_1.2:3@svc/x+y=', 'a'.repeat(128)]) expect(saneRequestId(id)).toBe(id);
  });
  it('refuses what could forge a log line or a header, and what is too long', () => {
    for (const id of ['', ' ', 'a b', 'a\nb', 'a\r\nX-Evil: 1', '"quoted"', 'ünïcode', '<script>', 'a'.repeat(129), undefined]) expect(saneRequestId(id)).toBeUndefined();
  });
});

describe('traceparent', () => {
  const good = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  it('keeps a well-formed one', () => {
    expect(validTraceparent(good)).toBe(good);
    expect(validTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future')).toBeDefined();
  });
  it('drops malformed ones', () => {
    for (const tp of [
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', // version ff is invalid
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01', // all-zero trace id
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', // all-zero parent id
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01', // upper case
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra', // version 00 has four fields
      '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01',
      'garbage', '',
    ]) expect(validTraceparent(tp), tp).toBeUndefined();
  });
});

describe('access log levels', () => {
  const all = { mode: 'all' as const, sample: 1 };
  it('writes successes at info, 4xx at warn, 5xx and failures at error', () => {
    expect(levelFor(all, 200, false)).toBe('info');
    expect(levelFor(all, 304, false)).toBe('info');
    expect(levelFor(all, 404, false)).toBe('warn');
    expect(levelFor(all, 503, false)).toBe('error');
    expect(levelFor(all, 200, true)).toBe('error');
  });
  it('ACCESS_LOG=errors writes only 4xx and 5xx', () => {
    const errors = { mode: 'errors' as const, sample: 1 };
    expect(levelFor(errors, 200, false)).toBe('silent');
    expect(levelFor(errors, 409, false)).toBe('warn');
    expect(levelFor(errors, 500, false)).toBe('error');
  });
  it('ACCESS_LOG_SAMPLE keeps that share of successes, and every error', () => {
    let n = 0;
    const tenth = { mode: 'all' as const, sample: 0.1, random: () => (n++ % 10) / 10 };
    const levels = Array.from({ length: 100 }, () => levelFor(tenth, 200, false));
    expect(levels.filter((l) => l === 'info')).toHaveLength(10);
    expect(levelFor({ mode: 'all', sample: 0 }, 200, false)).toBe('silent');
    expect(levelFor({ mode: 'all', sample: 0 }, 422, false)).toBe('warn');
  });
});

describe('access log settings', () => {
  it('are read from the environment, and a bad one is refused by name', async () => {
    const { loadConfig } = await import('../../src/config/env');
    expect(loadConfig({})).toMatchObject({ accessLog: 'all', accessLogSample: 1, workerPort: 9091 });
    expect(loadConfig({ ACCESS_LOG: 'errors', ACCESS_LOG_SAMPLE: '0.25', WORKER_PORT: '0' })).toMatchObject({ accessLog: 'errors', accessLogSample: 0.25, workerPort: 0 });
    expect(() => loadConfig({ ACCESS_LOG: 'verbose' })).toThrow(/ACCESS_LOG must be one of all, errors, off/);
    expect(() => loadConfig({ ACCESS_LOG_SAMPLE: '2' })).toThrow(/ACCESS_LOG_SAMPLE must be a number from 0 to 1/);
  });
});
