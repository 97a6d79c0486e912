// ?watch=true: a stream of WatchEvents (one JSON object a line) read from the event log after a
// resourceVersion (a log position), filtered by what the caller may read and by the selectors.
// Status is not in the log (the reconciler writes it apart): a recompute's notice makes the watch
// compare the statuses it last sent and send MODIFIED for those that changed, so `kubectl wait`
// and `get -w` see conditions move. Too old a resourceVersion (its next event older than the
// watch history the server keeps, KUBE_WATCH_HISTORY_SECONDS) is 410 Expired: the client lists again.
import type { Request, Response } from 'express';
import type { AppContext } from '../context';
import { HttpError } from '../problem';
import { sendStatus } from './errors';
import { failure } from '../../../core/kube/status';
import type { KubePath } from '../../../core/kube/paths';
import type { WatchEvent } from '../../../core/kube/types';
import { tableRow, columnDefinitions, wantsTable } from '../../../core/kube/table';
import { matchesLabels } from '../../../core/kube/labels';
import { matchesFields } from '../../../core/kube/field-selector';
import { canonicalJson } from '../../../core/objects/canonical';
import { streamKey } from '../../../core/objects/keys';
import type { K8sObject } from '../../../core/model/objects';
import type { Principal } from '../../../service/principal';
import { actorOf, canRead, listScope } from '../../../service/access';
import { eventPage } from '../../../service/event-feed';
import { presentSecret } from '../../../service/secrets';
import { atPosition, type KubeObjects } from '../../../service/kube-objects';
import { eventsChannel, reconciledChannel, subscribe } from '../../delivery/channels';
import { apiVersionOf } from '../../../core/kube/resources';
import type { ListSelectors } from './selectors';
import { Wakeup } from '../wakeup';
import { startStream } from '../sse';

const POLL_MS = 1000;
const BOOKMARK_MS = 10_000;
/** status re-reads after recomputes, at most this often */
const STATUS_EVERY_MS = 250;
/** and of every object of the kind, at most this often */
const FULL_STATUS_EVERY_MS = 10_000;

const TYPES = { Created: 'ADDED', Updated: 'MODIFIED', Deleted: 'DELETED' } as const;

export async function watch(ctx: AppContext, objects: KubeObjects, req: Request, res: Response, path: KubePath, sel: ListSelectors): Promise<void> {
  const { info } = path.resource;
  const principal: Principal = res.locals.principal;
  const actor = actorOf(principal);
  const namespace = info.scope === 'Namespaced' && path.namespace ? path.namespace : undefined;
  const scope = listScope(principal, info.kind);
  const namespaces = scope === 'all' || scope === null || namespace ? undefined : scope;
  const rvParam = typeof req.query.resourceVersion === 'string' ? req.query.resourceVersion : '';
  const bookmarks = req.query.allowWatchBookmarks === 'true';
  const sendInitial = req.query.sendInitialEvents === 'true';
  const asTable = wantsTable(req.header('accept'));
  let timeoutMs = 0;
  if (req.query.timeoutSeconds !== undefined) {
    const t = Number(req.query.timeoutSeconds);
    if (!Number.isFinite(t) || t < 0) throw new HttpError(400, `timeoutSeconds must be a non-negative number, got "${String(req.query.timeoutSeconds)}"`);
    timeoutMs = t * 1000;
  }
  const historyMs = ctx.config.kubeWatchHistorySeconds * 1000;
  const matches = (o: K8sObject) => (namespace === undefined || o.metadata.namespace === namespace) && matchesLabels(o.metadata.labels, sel.labels) && matchesFields(o, sel.fields);

  // where the stream starts: after the resourceVersion given, or now with the current objects first
  let cursor: number;
  let initial: K8sObject[] = [];
  const fromNow = rvParam === '' || rvParam === '0' || sendInitial;
  if (!fromNow) {
    if (!/^[0-9]{1,16}$/.test(rvParam)) throw new HttpError(400, `resourceVersion: Invalid value: "${rvParam.slice(0, 40)}": must be a resourceVersion this server issued`);
    cursor = Number(rvParam);
    const next = await objects.nextChangeTime(cursor);
    // a Kubernetes answer with no problem+json counterpart: sent as the Status it is
    if (next && historyMs > 0 && Date.now() - Date.parse(next) > historyMs)
      return sendStatus(res, failure(410, `too old resource version: ${rvParam} (the watch history kept is ${ctx.config.kubeWatchHistorySeconds} s)`, 'Expired'));
  } else {
    const listed = await objects.list(info, { namespace, namespaces, selector: sel.labels }, actor);
    cursor = listed.resourceVersion;
    initial = listed.items.filter(matches);
  }

  const release = ctx.limits.acquireSse(principal);
  startStream(req, res, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' }, ctx.sse);
  let closed = false;
  const wakeup = new Wakeup();
  let statusDirty = false;
  const poke = wakeup.poke;
  const unsubscribe = subscribe(ctx.bus, eventsChannel, poke);
  const tracksStatus = path.resource.group === 'gateway.networking.k8s.io';
  // the Gateways recomputed since the last status check; a wake-up (notices may have been lost) re-reads all
  const recomputed = new Set<string>();
  let rereadAll = false;
  const unsubscribeStatus = tracksStatus ? subscribe(ctx.bus, reconciledChannel, (m) => {
    if (m) recomputed.add(m.key);
    else rereadAll = true;
    statusDirty = true;
    poke();
  }) : () => undefined;
  const timer = setInterval(poke, POLL_MS);
  const ending = timeoutMs > 0 ? setTimeout(() => res.end(), timeoutMs) : null;
  res.on('close', () => {
    closed = true;
    ctx.sse.delete(res);
    release();
    unsubscribe();
    unsubscribeStatus();
    clearInterval(timer);
    if (ending) clearTimeout(ending);
    poke();
  });

  const av = apiVersionOf(path.group, path.version);
  const shown = (o: K8sObject) => (info.versions[o.apiVersion] === info.versions[av] ? { ...o, apiVersion: av } : o);
  let headerSent = false;
  const write = async (ev: WatchEvent) => {
    if (closed) return;
    let object = ev.object;
    if (asTable && ev.type !== 'BOOKMARK' && ev.type !== 'ERROR') {
      const o = object as K8sObject;
      object = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: o.metadata.resourceVersion }, columnDefinitions: headerSent ? [] : columnDefinitions(path.resource), rows: [tableRow(path.resource, o, Date.now(), 'Object')] };
      headerSent = true;
    }
    if (!res.write(JSON.stringify({ type: ev.type, object }) + '\n')) await new Promise<void>((resolve) => {
      const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
      res.on('drain', done);
      res.on('close', done);
    });
  };

  // the statuses last sent, by stream: a recompute that changes one is a MODIFIED
  const statuses = new Map<string, string>();
  const keyOf = (o: K8sObject) => streamKey(info.kind, info.scope === 'Namespaced' ? o.metadata.namespace ?? '' : '', o.metadata.name);
  const remember = (o: K8sObject) => { if (tracksStatus) statuses.set(keyOf(o), canonicalJson(o.status ?? null)); };
  const withStatus = (o: K8sObject): K8sObject => {
    const s = statuses.get(keyOf(o));
    return s && s !== 'null' ? { ...o, status: JSON.parse(s) } : o;
  };

  // with a selector, an object that comes to match is ADDED for this watch and one that stops is
  // DELETED, as kube-apiserver sends them; `known` is what this watch has told the client matches
  const selective = sel.labels.length > 0 || sel.fields.length > 0;
  const known = new Set<string>();
  for (const o of initial) {
    remember(o);
    known.add(keyOf(o));
    await write({ type: 'ADDED', object: shown(o) });
  }
  if (sendInitial && bookmarks) await write({ type: 'BOOKMARK', object: { kind: info.kind, apiVersion: av, metadata: { resourceVersion: String(cursor), annotations: { 'k8s.io/initial-events-end': 'true' } } } });
  if ((tracksStatus || selective) && !fromNow) {
    // resuming: what matches now stands for what matched then (the closest this watch can know)
    const listed = await objects.list(info, { namespace, namespaces, selector: sel.labels }, actor);
    for (const o of listed.items) {
      remember(o);
      if (matches(o)) known.add(keyOf(o));
    }
  }

  let lastStatusCheck = 0;
  let lastFullCheck = Date.now();
  let lastBookmark = Date.now();
  try {
    while (!closed) {
      wakeup.reset();
      const { items, next } = await eventPage(ctx.db, principal, cursor, 500, { kind: info.kind, ...(namespace !== undefined ? { namespace } : {}) });
      for (const ev of items) {
        const o = ev.kind === 'Secret' ? presentSecret(ev.object, undefined) : ev.object;
        let type: WatchEvent['type'] = TYPES[ev.type as keyof typeof TYPES];
        const k = keyOf(o);
        if (selective) {
          const was = known.has(k);
          const now = type !== 'DELETED' && matches(o);
          if (!was && !now) continue;
          if (type !== 'DELETED') type = was && now ? 'MODIFIED' : now ? 'ADDED' : 'DELETED';
          if (now) known.add(k);
          else known.delete(k);
        } else if (!matches(o)) continue;
        const object = atPosition(type === 'DELETED' ? o : withStatus(o), ev.position);
        if (type === 'DELETED') statuses.delete(k);
        await write({ type, object: shown(object) });
      }
      cursor = next;
      if (items.length === 500) continue;
      if (statusDirty && Date.now() - lastStatusCheck >= STATUS_EVERY_MS) {
        statusDirty = false;
        lastStatusCheck = Date.now();
        // the objects of the Gateways recomputed; every object now and then, for a route a recompute
        // left (its status part is gone, and no longer names that Gateway)
        const all = rereadAll || Date.now() - lastFullCheck >= FULL_STATUS_EVERY_MS;
        const keys = [...recomputed];
        recomputed.clear();
        rereadAll = false;
        let candidates: K8sObject[];
        if (all) {
          lastFullCheck = Date.now();
          candidates = (await objects.list(info, { namespace, namespaces, selector: sel.labels }, actor)).items;
        } else {
          const found = await objects.statusedBy(info, keys, ctx.config.controllerName);
          candidates = found.filter((o) => canRead(principal, info.kind, info.scope === 'Namespaced' ? o.metadata.namespace : undefined, o.metadata.name));
        }
        for (const o of candidates) {
          if (!matches(o)) continue;
          const k = keyOf(o);
          const s = canonicalJson(o.status ?? null);
          // an object the log has not shown this watch yet comes with its own event
          if (Number(o.metadata.resourceVersion) > cursor) continue;
          if (statuses.get(k) === s) continue;
          statuses.set(k, s);
          await write({ type: 'MODIFIED', object: shown(o) });
        }
      } else if (statusDirty) {
        setTimeout(poke, STATUS_EVERY_MS);
      }
      if (bookmarks && Date.now() - lastBookmark >= BOOKMARK_MS) {
        lastBookmark = Date.now();
        await write({ type: 'BOOKMARK', object: { kind: info.kind, apiVersion: av, metadata: { resourceVersion: String(cursor) } } });
      }
      if (!closed) await wakeup.sleep();
    }
  } catch (e) {
    ctx.logger.warn({ err: e }, 'kubernetes watch ended by an error');
    res.end();
  }
}
