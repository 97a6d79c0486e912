// Middleware run as one layer of the app behave as the layers they replace: in order, an error
// skipping the rest, an async one's rejection passed on.
import { describe, expect, it } from 'vitest';
import type { Request, Response } from 'express';
import { inSequence } from '../../src/adapters/http/app';

const req = {} as Request;
const res = {} as Response;
const run = (h: ReturnType<typeof inSequence>) => new Promise<unknown>((resolve) => { h(req, res, (err?: unknown) => resolve(err ?? 'done')); });

describe('inSequence', () => {
  it('calls each in order, then the next layer', async () => {
    const seen: number[] = [];
    const h = inSequence([1, 2, 3].map((n) => (_q: Request, _s: Response, next: (e?: unknown) => void) => { seen.push(n); next(); }));
    expect(await run(h)).toBe('done');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('passes an error on without calling the rest', async () => {
    const seen: string[] = [];
    const boom = new Error('boom');
    const h = inSequence([
      (_q, _s, next) => { seen.push('a'); next(boom); },
      (_q, _s, next) => { seen.push('b'); next(); },
    ]);
    expect(await run(h)).toBe(boom);
    expect(seen).toEqual(['a']);
  });

  it('passes on what a handler throws, and an async handler\'s rejection', async () => {
    const thrown = new Error('thrown');
    expect(await run(inSequence([() => { throw thrown; }, (_q, _s, next) => next()]))).toBe(thrown);
    const rejected = new Error('rejected');
    expect(await run(inSequence([async () => { await Promise.resolve(); throw rejected; }, (_q, _s, next) => next()]))).toBe(rejected);
  });

  it('waits for an async handler to call next', async () => {
    const seen: string[] = [];
    const h = inSequence([
      async (_q, _s, next) => { await new Promise((r) => setTimeout(r, 5)); seen.push('async'); next(); },
      (_q, _s, next) => { seen.push('sync'); next(); },
    ]);
    expect(await run(h)).toBe('done');
    expect(seen).toEqual(['async', 'sync']);
  });
});
