// Abuse limits per token: a request rate (token bucket, 429 with Retry-After) and a cap on
// concurrent SSE connections. Per process: a client spread over N API processes gets N times the rate.
import type { NextFunction, Request, Response } from 'express';
import { HttpError } from './problem';
import type { Principal } from '../../service/principal';

interface Bucket { tokens: number; at: number }

export class Limits {
  private buckets = new Map<string, Bucket>();
  private sse = new Map<string, number>();

  constructor(private readonly ratePerSecond: number, private readonly burst: number, private readonly maxSse: number) {}

  /** express middleware, after authentication */
  rate = (_req: Request, res: Response, next: NextFunction) => {
    const p: Principal | undefined = res.locals.principal;
    if (!p || this.tryTake(p)) return next();
    const b = this.buckets.get(p.name)!;
    const retry = Math.max(1, Math.ceil((1 - b.tokens) / this.ratePerSecond));
    next(new HttpError(429, `token "${p.name}" is over its request rate of ${this.ratePerSecond}/s; retry after ${retry} s`, undefined, { 'Retry-After': String(retry) }));
  };

  /** Takes one request from the token's bucket; false (nothing taken) when it is empty. */
  tryTake(p: Principal): boolean {
    if (this.ratePerSecond <= 0) return true;
    const now = Date.now();
    const b = this.buckets.get(p.name) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.ratePerSecond);
    b.at = now;
    this.buckets.set(p.name, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** Takes one of the token's SSE slots; the returned function gives it back. */
  acquireSse(p: Principal): () => void {
    const n = this.sse.get(p.name) ?? 0;
    if (n >= this.maxSse) throw new HttpError(429, `token "${p.name}" already holds ${n} event streams, the most it may`, undefined, { 'Retry-After': '5' });
    this.sse.set(p.name, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.sse.get(p.name) ?? 1) - 1;
      if (left <= 0) this.sse.delete(p.name);
      else this.sse.set(p.name, left);
    };
  }
}
