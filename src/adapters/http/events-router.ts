// The event log as a feed (GET /api/v1/events) and as an SSE stream (GET /api/v1/events/watch).
import { Router, type Request, type Response } from 'express';
import type { AppContext } from './context';
import { HttpError } from './problem';
import { openSse, lastEventId } from './sse';
import type { Principal } from '../../service/principal';
import { presentEvent } from '../../service/event-view';
import { eventPage, eventPageWithStatus, feedEnd, MAX_PAGE, type EventFilters } from '../../service/event-feed';
import { eventsChannel, reconciledChannel, subscribe } from '../delivery/channels';
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
      const status = withStatus(req);
      const page = status ? eventPageWithStatus : eventPage;
      const { items, next: nextPos } = await page(ctx.db, res.locals.principal, after, limit, f, ctx.config.controllerName);
      const lastPosition = await feedEnd(ctx.db, status);
      res.json({ items: items.map((e) => presentEvent(res.locals.principal, e)), next: nextPos, lastPosition });
    } catch (e) {
      next(e);
    }
  });

  r.get('/api/v1/events/watch', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/events/watch';
    let cursor: number;
    let f: EventFilters;
    let page: typeof eventPageWithStatus;
    try {
      const resume = lastEventId(req) ?? (req.query.after as string | undefined);
      const status = withStatus(req);
      cursor = resume !== undefined ? intParam(resume, 'Last-Event-ID', 0, 0) : await feedEnd(ctx.db, status);
      f = filters(req);
      page = status ? eventPageWithStatus : eventPage;
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
    // a recompute's notice: statuses may have changed
    const unsubscribeStatus = page === eventPageWithStatus ? subscribe(ctx.bus, reconciledChannel, poke) : () => undefined;
    const timer = setInterval(poke, POLL_MS);
    stream.onClose(() => {
      unsubscribe();
      unsubscribeStatus();
      clearInterval(timer);
      poke();
    });
    stream.comment('connected');
    try {
      while (!stream.closed) {
        wakeup.reset();
        const { items, next: nextPos } = await page(ctx.db, principal, cursor, 500, f, ctx.config.controllerName);
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

/** `?status=true`: the reconciler's status changes too, as StatusChanged items among the events. */
function withStatus(req: Request): boolean {
  const v = req.query.status;
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  throw new HttpError(400, `status must be true or false, got "${String(v)}"`);
}

function filters(req: Request): EventFilters {
  const f: EventFilters = {};
  if (typeof req.query.kind === 'string' && req.query.kind) f.kind = req.query.kind;
  if (typeof req.query.namespace === 'string') f.namespace = req.query.namespace;
  return f;
}
