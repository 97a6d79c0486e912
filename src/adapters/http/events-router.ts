// The event log as a feed (GET /api/v1/events) and as an SSE stream (GET /api/v1/events/watch).
import { Router, type Request, type Response } from 'express';
import type { AppContext } from './context';
import { HttpError } from './problem';
import { lastVisiblePosition, readEvents, type StoredEvent } from '../store/eventlog';
import { openSse, lastEventId } from './sse';
import type { Principal } from '../../service/principal';
import { presentEvent, canReadEvent } from '../../service/event-view';
import { eventsChannel, subscribe } from '../delivery/channels';

const POLL_MS = 1000;
const MAX_LIMIT = 1000;

function intParam(v: unknown, name: string, def: number, min: number): number {
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min) throw new HttpError(400, `${name} must be an integer >= ${min}, got "${String(v)}"`);
  return n;
}

interface Filters { kind?: string; namespace?: string }

/** Reads up to `limit` events after `after` that the caller may see, skipping the others. */
async function page(ctx: AppContext, p: Principal, after: number, limit: number, f: Filters): Promise<{ items: StoredEvent[]; next: number }> {
  const items: StoredEvent[] = [];
  let cursor = after;
  for (;;) {
    const batch = Math.min(MAX_LIMIT, Math.max(limit - items.length, 50));
    const { items: read, horizon } = await readEvents(ctx.db.sql, { after: cursor, limit: batch, ...f });
    for (const ev of read) {
      cursor = ev.position;
      if (canReadEvent(p, ev)) items.push(ev);
      if (items.length === limit) return { items, next: cursor };
    }
    if (read.length < batch) return { items, next: Math.max(cursor, horizon) };
  }
}

export function eventsRouter(ctx: AppContext): Router {
  const r = Router();

  r.get('/api/v1/events', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/events';
    try {
      const after = intParam(req.query.after, 'after', 0, 0);
      const limit = Math.min(intParam(req.query.limit, 'limit', 100, 1), MAX_LIMIT);
      const f = filters(req);
      const { items, next: nextPos } = await page(ctx, res.locals.principal, after, limit, f);
      const lastPosition = await lastVisiblePosition(ctx.db.sql);
      res.json({ items: items.map((e) => presentEvent(res.locals.principal, e)), next: nextPos, lastPosition });
    } catch (e) {
      next(e);
    }
  });

  r.get('/api/v1/events/watch', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/events/watch';
    let cursor: number;
    let f: Filters;
    try {
      const resume = lastEventId(req) ?? (req.query.after as string | undefined);
      cursor = resume !== undefined ? intParam(resume, 'Last-Event-ID', 0, 0) : await lastVisiblePosition(ctx.db.sql);
      f = filters(req);
    } catch (e) {
      return next(e);
    }
    const principal: Principal = res.locals.principal;
    let release: () => void;
    try {
      release = ctx.limits.acquireSse(principal);
    } catch (e) {
      return next(e);
    }
    ctx.metrics.sseConnections.inc({ stream: 'events' });
    const stream = openSse(req, res, ctx.sse);
    stream.onClose(release);
    let wake: (() => void) | null = null;
    let dirty = false;
    const poke = () => {
      dirty = true;
      const w = wake;
      wake = null;
      w?.();
    };
    const unsubscribe = subscribe(ctx.bus, eventsChannel, poke);
    const timer = setInterval(poke, POLL_MS);
    stream.onClose(() => {
      unsubscribe();
      clearInterval(timer);
      poke();
    });
    stream.comment('connected');
    try {
      while (!stream.closed) {
        dirty = false;
        const { items, next: nextPos } = await page(ctx, principal, cursor, 500, f);
        for (const ev of items) {
          await stream.send({ id: ev.position, event: ev.type, data: JSON.stringify(presentEvent(principal, ev)) });
        }
        cursor = nextPos;
        if (items.length === 500) continue;
        if (!dirty && !stream.closed) await new Promise<void>((resolve) => { wake = resolve; });
      }
    } catch (e) {
      ctx.logger.warn({ err: e }, 'events watch ended by an error');
      stream.end();
    }
  });

  return r;
}

function filters(req: Request): Filters {
  const f: Filters = {};
  if (typeof req.query.kind === 'string' && req.query.kind) f.kind = req.query.kind;
  if (typeof req.query.namespace === 'string') f.namespace = req.query.namespace;
  return f;
}
