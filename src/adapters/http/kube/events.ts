// Kubernetes Events at /api/v1/.../events and /apis/events.k8s.io/v1/.../events: get, list (field
// and label selectors, limit and continue, the Table kubectl prints) and watch, read from the
// kube_events table. Read only: the control plane alone records Events, so a write is 405
// MethodNotAllowed. Who may read an Event is who may read its object's namespace.
import type { Request, Response } from 'express';
import type { AppContext } from '../context';
import { HttpError } from '../problem';
import { sendJson } from '../body';
import { listScope } from '../../../service/access';
import type { Principal } from '../../../service/principal';
import {
  EVENTS_GROUP, EventFieldSelectorError, eventColumns, eventRow, eventTable, listKind, matchesEventFields, parseEventFieldSelector, shownAs,
  type EventFieldRequirement, type EventsPath, type IncludeObject, type StoredKubeEvent,
} from '../../../core/kube/events';
import { wantsTable } from '../../../core/kube/table';
import { matchesLabels } from '../../../core/kube/labels';
import { parseLabelSelector, SelectorError, type Requirement } from '../../../core/objects/label-selector';
import { eventsSince, listEvents, readEvent, type EventScope } from '../../store/kube-events';
import { reconciledChannel, subscribe } from '../../delivery/channels';
import { Wakeup } from '../wakeup';
import { startStream } from '../sse';

const POLL_MS = 1000;
const BOOKMARK_MS = 10_000;
const PAGE = 500;

function resourceWords(path: EventsPath): string {
  return path.api === 'core' ? 'events' : `events.${EVENTS_GROUP}`;
}

function forbidden(p: Principal, verb: string, path: EventsPath): HttpError {
  const where = path.namespace ? ` in the namespace "${path.namespace}"` : ' at the cluster scope';
  return new HttpError(403, `${resourceWords(path)}${path.name ? ` "${path.name}"` : ''} is forbidden: token "${p.name}" (${p.role}) cannot ${verb} resource "events" in API group "${path.api === 'core' ? '' : EVENTS_GROUP}"${where}`);
}

/** Whom a request may see Events of: those of the namespaces whose objects it may read. */
function scopeFor(p: Principal, verb: string, path: EventsPath): EventScope {
  const scope = listScope(p, 'Namespace');
  if (scope === null) throw forbidden(p, verb, path);
  if (path.namespace) {
    if (scope !== 'all' && !scope.includes(path.namespace)) throw forbidden(p, verb, path);
    return { namespace: path.namespace };
  }
  return scope === 'all' ? {} : { namespaces: scope };
}

interface Selectors { labels: Requirement[]; fields: EventFieldRequirement[] }

function selectorsOf(req: Request, path: EventsPath): Selectors {
  const q = req.query;
  try {
    return {
      labels: typeof q.labelSelector === 'string' && q.labelSelector ? parseLabelSelector(q.labelSelector) : [],
      fields: typeof q.fieldSelector === 'string' && q.fieldSelector ? parseEventFieldSelector(path.api, q.fieldSelector) : [],
    };
  } catch (e) {
    if (e instanceof SelectorError) throw new HttpError(400, `unable to parse requirement: labelSelector: ${e.message}`);
    if (e instanceof EventFieldSelectorError) throw new HttpError(400, `fieldSelector: ${e.message}`);
    throw e;
  }
}

/** Events carry no labels: a label selector matches those a label-less object matches. */
const matches = (sel: Selectors) => (e: StoredKubeEvent) => matchesLabels(undefined, sel.labels) && matchesEventFields(e, sel.fields);

function includeObject(req: Request): IncludeObject {
  const v = req.query.includeObject;
  if (v === undefined || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw new HttpError(400, `includeObject: Unsupported value: "${String(v)}": supported values: "None", "Metadata", "Object"`);
}

const TOKEN_PART = /^[a-z0-9.-]{0,253}$/;

function decodeContinue(token: string): { namespace: string; name: string; rv: number } {
  try {
    const [namespace, name, rv] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof namespace !== 'string' || typeof name !== 'string' || !TOKEN_PART.test(namespace) || !TOKEN_PART.test(name) || !Number.isSafeInteger(rv)) throw new Error();
    return { namespace, name, rv };
  } catch {
    throw new HttpError(400, 'the provided continue parameter is not valid: it is not one this server issued');
  }
}

export function eventsHandler(ctx: AppContext) {
  const retention = () => ctx.config.kubeEventsRetentionSeconds;
  return async (req: Request, res: Response, path: EventsPath): Promise<void> => {
    res.locals.route = path.template;
    res.locals.kubeTarget = { kind: 'events', kindName: 'Event', group: path.api === 'core' ? '' : EVENTS_GROUP, name: path.name };
    const principal: Principal = res.locals.principal;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      throw new HttpError(405, `${req.method} is not allowed on ${resourceWords(path)}: Events are recorded by the control plane alone, and read only here`, undefined, { Allow: 'GET' });
    }
    const watching = path.name === undefined && (req.query.watch === 'true' || req.query.watch === '1');
    const verb = path.name !== undefined ? 'get' : watching ? 'watch' : 'list';
    const scope = scopeFor(principal, verb, path);
    const asTable = wantsTable(req.header('accept'));

    if (path.name !== undefined) {
      const e = await readEvent(ctx.db.sql, path.namespace, path.name, retention());
      if (!e) throw new HttpError(404, `${resourceWords(path)} "${path.name}" not found`);
      res.setHeader('ETag', `"${e.resourceVersion}"`);
      if (asTable) return sendJson(res, 200, eventTable(path.api, [e], Date.now(), includeObject(req), { resourceVersion: String(e.resourceVersion) }));
      return sendJson(res, 200, shownAs(path.api, e));
    }
    const sel = selectorsOf(req, path);
    if (watching) return watchEvents(ctx, req, res, path, { ...scope, fields: sel.fields }, sel, asTable);

    let limit: number | undefined;
    if (req.query.limit !== undefined && req.query.limit !== '' && req.query.limit !== '0') {
      const n = Number(req.query.limit);
      if (!Number.isInteger(n) || n < 1) throw new HttpError(400, `limit must be a positive integer, got "${String(req.query.limit)}"`);
      limit = Math.min(n, ctx.config.maxListLimit);
    }
    const token = typeof req.query.continue === 'string' && req.query.continue ? decodeContinue(req.query.continue) : undefined;
    const out = await listEvents(ctx.db.sql, { ...scope, fields: sel.fields }, retention(), { after: token, limit });
    const resourceVersion = String(token?.rv ?? out.resourceVersion);
    const last = out.items[out.items.length - 1];
    const metadata: { resourceVersion: string; continue?: string } = { resourceVersion };
    if (out.more && last) metadata.continue = Buffer.from(JSON.stringify([last.namespace, last.name, Number(resourceVersion)])).toString('base64url');
    const items = out.items.filter(matches(sel));
    if (asTable) return sendJson(res, 200, eventTable(path.api, items, Date.now(), includeObject(req), metadata));
    sendJson(res, 200, { ...listKind(path.api), metadata, items: items.map((e) => shownAs(path.api, e)) });
  };
}

/**
 * ?watch=true: ADDED for an Event's first occurrence, MODIFIED for each repeat counted into it,
 * read from the table after the resourceVersion given (or after the Events listed first). Woken
 * by the reconciler's notices, and every second (a proxy report's Event has none).
 */
async function watchEvents(ctx: AppContext, req: Request, res: Response, path: EventsPath, scope: EventScope, sel: Selectors, asTable: boolean): Promise<void> {
  const principal: Principal = res.locals.principal;
  const rvParam = typeof req.query.resourceVersion === 'string' ? req.query.resourceVersion : '';
  const bookmarks = req.query.allowWatchBookmarks === 'true';
  const sendInitial = req.query.sendInitialEvents === 'true';
  let timeoutMs = 0;
  if (req.query.timeoutSeconds !== undefined) {
    const t = Number(req.query.timeoutSeconds);
    if (!Number.isFinite(t) || t < 0) throw new HttpError(400, `timeoutSeconds must be a non-negative number, got "${String(req.query.timeoutSeconds)}"`);
    timeoutMs = t * 1000;
  }
  const match = matches(sel);
  let cursor: number;
  let initial: StoredKubeEvent[] = [];
  if (rvParam === '' || rvParam === '0' || sendInitial) {
    const listed = await listEvents(ctx.db.sql, scope, ctx.config.kubeEventsRetentionSeconds);
    cursor = listed.resourceVersion;
    initial = listed.items.filter(match);
  } else {
    if (!/^[0-9]{1,16}$/.test(rvParam)) throw new HttpError(400, `resourceVersion: Invalid value: "${rvParam.slice(0, 40)}": must be a resourceVersion this server issued`);
    cursor = Number(rvParam);
  }

  const release = ctx.limits.acquireSse(principal);
  startStream(req, res, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' }, ctx.sse);
  let closed = false;
  const wakeup = new Wakeup();
  const unsubscribe = subscribe(ctx.bus, reconciledChannel, wakeup.poke);
  const timer = setInterval(wakeup.poke, POLL_MS);
  const ending = timeoutMs > 0 ? setTimeout(() => res.end(), timeoutMs) : null;
  res.on('close', () => {
    closed = true;
    ctx.sse.delete(res);
    release();
    unsubscribe();
    clearInterval(timer);
    if (ending) clearTimeout(ending);
    wakeup.poke();
  });

  const kind = { apiVersion: listKind(path.api).apiVersion, kind: 'Event' };
  let headerSent = false;
  const write = async (type: 'ADDED' | 'MODIFIED' | 'BOOKMARK', e?: StoredKubeEvent, bookmark?: { rv: number; initialEnd?: boolean }) => {
    if (closed) return;
    let object: unknown;
    if (!e) object = { ...kind, metadata: { resourceVersion: String(bookmark?.rv), ...(bookmark?.initialEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}) } };
    else if (asTable) {
      object = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: String(e.resourceVersion) }, columnDefinitions: headerSent ? [] : eventColumns(), rows: [eventRow(path.api, e, Date.now(), 'Object')] };
      headerSent = true;
    } else object = shownAs(path.api, e);
    if (!res.write(JSON.stringify({ type, object }) + '\n')) await new Promise<void>((resolve) => {
      const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
      res.on('drain', done);
      res.on('close', done);
    });
  };

  for (const e of initial) await write('ADDED', e);
  if (sendInitial && bookmarks) await write('BOOKMARK', undefined, { rv: cursor, initialEnd: true });
  let lastBookmark = Date.now();
  try {
    while (!closed) {
      wakeup.reset();
      const { items, next } = await eventsSince(ctx.db.sql, cursor, scope, ctx.config.kubeEventsRetentionSeconds, PAGE);
      for (const e of items) if (match(e)) await write(e.count > 1 ? 'MODIFIED' : 'ADDED', e);
      cursor = next;
      if (items.length === PAGE) continue;
      if (bookmarks && Date.now() - lastBookmark >= BOOKMARK_MS) {
        lastBookmark = Date.now();
        await write('BOOKMARK', undefined, { rv: cursor });
      }
      if (!closed) await wakeup.sleep();
    }
  } catch (e) {
    ctx.logger.warn({ err: e }, 'kubernetes watch of events ended by an error');
    res.end();
  }
}
