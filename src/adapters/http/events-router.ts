// The event log as a feed (GET /api/v1/events) and as an SSE stream (GET /api/v1/events/watch).
import { Router, type Request, type Response } from 'express';
import type { AppContext } from './context';
import { HttpError } from './problem';
import { openSse, lastEventId } from './sse';
import type { Principal } from '../../service/principal';
import { presentEvent } from '../../service/event-view';
import { eventPage, feedEnd, MAX_PAGE, type EventFilters } from '../../service/event-feed';
import { eventsChannel, subscribe } from '../delivery/channels';
import { Wakeup } from './wakeup';

const POLL_MS = 1000;

function intParam(v: unknown, name: string, def: number, min: number): number {
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min) throw new HttpError(400, `${name} must be an integer >= ${min}, got "${String(v)}"`);
  return n;
}

export function eventsRouter(ctx: AppContext): Router {
  const r = Router();

  r.get('/api/v1/events', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/events';
    try {
      const after = intParam(req.query.after, 'after', 0, 0);
      const limit = Math.min(intParam(req.query.limit, 'limit', 100, 1), MAX_PAGE);
      const f = filters(req);
      const { items, next: nextPos } = await eventPage(ctx.db, res.locals.principal, after, limit, f);
      const lastPosition = await feedEnd(ctx.db);
      res.json({ items: items.map((e) => presentEvent(res.locals.principal, e)), next: nextPos, lastPosition });
    } catch (e) {
      next(e);
    }
  });

  r.get('/api/v1/events/watch', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/events/watch';
    let cursor: number;
    let f: EventFilters;
    try {
      const resume = lastEventId(req) ?? (req.query.after as string | undefined);
      cursor = resume !== undefined ? intParam(resume, 'Last-Event-ID', 0, 0) : await feedEnd(ctx.db);
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
    const stream = openSse(req, res, ctx.sse);
    stream.onClose(release);
    stream.onClose(ctx.metrics.sseOpened('events'));
    const wakeup = new Wakeup();
    const poke = wakeup.poke;
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
        wakeup.reset();
        const { items, next: nextPos } = await eventPage(ctx.db, principal, cursor, 500, f);
        for (const ev of items) {
          await stream.send({ id: ev.position, event: ev.type, data: JSON.stringify(presentEvent(principal, ev)) });
        }
        cursor = nextPos;
        if (items.length === 500) continue;
        if (!stream.closed) await wakeup.sleep();
      }
    } catch (e) {
      ctx.logger.warn({ err: e }, 'events watch ended by an error');
      stream.end();
    }
  });

  return r;
}

function filters(req: Request): EventFilters {
  const f: EventFilters = {};
  if (typeof req.query.kind === 'string' && req.query.kind) f.kind = req.query.kind;
  if (typeof req.query.namespace === 'string') f.namespace = req.query.namespace;
  return f;
}
