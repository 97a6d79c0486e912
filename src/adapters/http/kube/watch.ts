// ?watch=true: a stream of WatchEvents (one JSON object a line) read after a resourceVersion (a
// position), filtered by what the caller may read and by the selectors. Two sources merge in
// position order: the event log, and the status changes the reconciler records beside it
// (status_positions: a status change is a position of its own, so it is a MODIFIED with a new
// resourceVersion, and informers see statuses). Every event carries the object's status as it is
// now. Too old a resourceVersion (its next event older than the watch history the server keeps,
// KUBE_WATCH_HISTORY_SECONDS) is 410 Expired: the client lists again.
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
  const poke = wakeup.poke;
  const unsubscribe = subscribe(ctx.bus, eventsChannel, poke);
  const tracksStatus = path.resource.group === 'gateway.networking.k8s.io';
  // a recompute's notice: statuses may have changed
  const unsubscribeStatus = tracksStatus ? subscribe(ctx.bus, reconciledChannel, poke) : () => undefined;
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

  const keyOf = (o: K8sObject) => streamKey(info.kind, info.scope === 'Namespaced' ? o.metadata.namespace ?? '' : '', o.metadata.name);

  // with a selector, an object that comes to match is ADDED for this watch and one that stops is
  // DELETED, as kube-apiserver sends them; `known` is what this watch has told the client matches
  const selective = sel.labels.length > 0 || sel.fields.length > 0;
  const known = new Set<string>();
  for (const o of initial) {
    known.add(keyOf(o));
    await write({ type: 'ADDED', object: shown(o) });
  }
  if (sendInitial && bookmarks) await write({ type: 'BOOKMARK', object: { kind: info.kind, apiVersion: av, metadata: { resourceVersion: String(cursor), annotations: { 'k8s.io/initial-events-end': 'true' } } } });
  if (selective && !fromNow) {
    // resuming: what matches now stands for what matched then (the closest this watch can know)
    const listed = await objects.list(info, { namespace, namespaces, selector: sel.labels }, actor);
    for (const o of listed.items) if (matches(o)) known.add(keyOf(o));
  }

  let lastBookmark = Date.now();
  try {
    while (!closed) {
      wakeup.reset();
      const { items, next } = await eventPage(ctx.db, principal, cursor, 500, { kind: info.kind, ...(namespace !== undefined ? { namespace } : {}) });
      // the log's events and the status changes up to where the log was read, in position order
      const changes: { position: number; type: WatchEvent['type']; object: K8sObject }[] = items.map((ev) => ({
        position: ev.position, type: TYPES[ev.type as keyof typeof TYPES],
        object: ev.kind === 'Secret' ? presentSecret(ev.object, undefined) : ev.object,
      }));
      let statusNow = new Map<string, unknown>();
      if (tracksStatus) {
        // the two reads are independent: one round trip's wait, not two, between a change and its event
        const streams = [...new Set(items.filter((ev) => ev.type !== 'Deleted').map((ev) => keyOf(ev.object)))];
        const [changed, now] = await Promise.all([objects.statusChanges(info, cursor, next, { namespace, namespaces }), objects.statusesNow(streams)]);
        statusNow = now;
        for (const o of changed) {
          if (!canRead(principal, info.kind, info.scope === 'Namespaced' ? o.metadata.namespace : undefined, o.metadata.name)) continue;
          changes.push({ position: Number(o.metadata.resourceVersion), type: 'MODIFIED', object: o });
        }
        if (changed.length) changes.sort((a, b) => a.position - b.position);
      }
      for (const c of changes) {
        const o = c.object;
        let type = c.type;
        const k = keyOf(o);
        if (selective) {
          const was = known.has(k);
          const now = type !== 'DELETED' && matches(o);
          if (!was && !now) continue;
          if (type !== 'DELETED') type = was && now ? 'MODIFIED' : now ? 'ADDED' : 'DELETED';
          if (now) known.add(k);
          else known.delete(k);
        } else if (!matches(o)) continue;
        const status = type === 'DELETED' ? undefined : statusNow.get(k);
        const object = atPosition(status !== undefined ? { ...o, status } : o, c.position);
        await write({ type, object: shown(object) });
      }
      cursor = next;
      if (items.length === 500) continue;
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
