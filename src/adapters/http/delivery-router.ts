// Delivery to proxies: the compiled snapshot (ETag, If-None-Match, ?wait= long-poll), its SSE watch,
// and resolve ("where would this request go, and why").
import { Router, type Request, type Response } from 'express';
import type { AppContext } from './context';
import { HttpError } from './problem';
import { openSse, lastEventId, sseFrame, sseLineFrame } from './sse';
import { secretsOf, unattachedOf, withSecrets, type CachedSnapshot, type HeldSnapshot } from '../delivery/snapshots';
import { readSecretsWithData } from '../store/snapshot-reads';
import { mayReferenceSecrets, secretDataPieces, withSecretData, type TextPiece } from '../../core/snapshot/format';
import { streamKey } from '../../core/objects/keys';
import { canRead, canReadSnapshot } from '../../service/access';
import type { Principal } from '../../service/principal';
import { requireBody } from './body';
import { resolve } from '../../core/resolve';

const MAX_WAIT_SECONDS = 300;

function etagVersion(header: string | undefined): number | undefined {
  if (!header) return undefined;
  const m = header.trim().match(/^(?:W\/)?"?(\d+)"?$/);
  return m ? Number(m[1]) : undefined;
}

async function body(ctx: AppContext, snap: CachedSnapshot, access: 'with-secrets' | 'without-secrets'): Promise<string> {
  return access === 'with-secrets' ? withSecrets(ctx.db, snap) : snap.body;
}

/** body's text in pieces, for a frame written straight from them (see sseLineFrame). */
async function bodyPieces(ctx: AppContext, snap: CachedSnapshot, access: 'with-secrets' | 'without-secrets'): Promise<TextPiece[]> {
  return access === 'with-secrets' ? secretDataPieces(snap.body, await secretsOf(ctx.db, snap)) : [{ text: snap.body }];
}

// The SSE event of a snapshot, framed once per version and access and shared by the subscribers a
// change is sent to (a Gateway's proxies all get the same frame, not a copy each), unless it
// carries Secret data, which is read per send. Kept for a few seconds only: a cached snapshot needs
// no second copy of its body. The frame is encoded once: a string is encoded again for every
// socket it is written to (a 60 MB table for each of a Gateway's proxies).
const frames = new WeakMap<CachedSnapshot, Partial<Record<'with-secrets' | 'without-secrets', Promise<Buffer>>>>();
const FRAME_KEEP_MS = 5_000;

function frameOf(ctx: AppContext, snap: CachedSnapshot, a: 'with-secrets' | 'without-secrets'): Promise<Buffer> {
  const build = async () => sseLineFrame({ id: snap.version, event: 'snapshot' }, await bodyPieces(ctx, snap, a));
  if (a === 'with-secrets' && snap.secretRefs.length > 0) return build();
  let byAccess = frames.get(snap);
  if (!byAccess) {
    frames.set(snap, (byAccess = {}));
    const ref = new WeakRef(snap);
    setTimeout(() => { const s = ref.deref(); if (s) frames.delete(s); }, FRAME_KEEP_MS).unref();
  }
  return (byAccess[a] ??= build());
}

/** `?delta=true`: the client applies deltas (openapi/schemas/snapshot-delta.yaml); absent or false: whole snapshots. */
function deltaWanted(raw: unknown): boolean {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new HttpError(400, `delta must be true or false, got "${String(raw)}"`);
}

/** `?since=VERSION`: a non-negative integer. */
function sinceVersion(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const v = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(v)) throw new HttpError(400, `since must be a snapshot version (a non-negative integer), got "${String(raw)}"`);
  return v;
}

// A delta's text is made once per pair of versions (see delivery/deltas); framed once per access
// too, unless it carries Secret data, which is read per send as for whole snapshots.
const deltaFrames = new WeakMap<HeldSnapshot, Map<string, string>>();

/** The delta from `from` to `snap` as a body, or null when `from` is too far behind (the whole snapshot goes instead). */
async function deltaBody(ctx: AppContext, key: string, from: number, snap: HeldSnapshot, a: 'with-secrets' | 'without-secrets'): Promise<string | null> {
  const text = ctx.snapshots.deltas.deltaText(key, from, snap);
  if (text === null || a === 'without-secrets' || snap.secretRefs.length === 0) return text;
  return withSecretData(text, await readSecretsWithData(ctx.db.sql, snap.secretRefs.map((r) => streamKey('Secret', r.namespace, r.name))));
}

async function deltaFrameOf(ctx: AppContext, key: string, from: number, snap: HeldSnapshot, a: 'with-secrets' | 'without-secrets'): Promise<string | null> {
  const perSend = a === 'with-secrets' && snap.secretRefs.length > 0;
  const memo = `${from}|${a}`;
  const hit = perSend ? undefined : deltaFrames.get(snap)?.get(memo);
  if (hit !== undefined) return hit;
  const text = await deltaBody(ctx, key, from, snap, a);
  if (text === null) return null;
  const frame = sseFrame({ id: snap.version, event: 'delta', data: text });
  if (!perSend) {
    let m = deltaFrames.get(snap);
    if (!m) deltaFrames.set(snap, (m = new Map()));
    m.set(memo, frame);
  }
  return frame;
}

// The frame of an announced delta, made once for every watcher it goes to (the last few only).
const announced = new Map<string, string>();
function announcedFrame(key: string, from: number, to: number, text: string): string {
  const k = `${key}|${from}|${to}`;
  let frame = announced.get(k);
  if (frame === undefined) {
    announced.set(k, (frame = sseFrame({ id: to, event: 'delta', data: text })));
    while (announced.size > 64) announced.delete(announced.keys().next().value!);
  }
  return frame;
}

const noSnapshot = (key: string) => new HttpError(404, `Gateway ${key} has no compiled snapshot (it does not exist, or its GatewayClass is not this controller's)`);

function access(p: Principal, ns: string, name: string) {
  const a = canReadSnapshot(p, ns, name);
  if (!a) throw new HttpError(403, `this token may not read the snapshot of Gateway ${ns}/${name}`);
  return a;
}

export function deliveryRouter(ctx: AppContext): Router {
  const r = Router();
  const hub = ctx.snapshots;

  r.get('/api/v1/namespaces/:namespace/gateways/:name/snapshot', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/namespaces/:namespace/gateways/:name/snapshot';
    try {
      const { namespace, name } = req.params as { namespace: string; name: string };
      const a = access(res.locals.principal, namespace, name);
      const key = `${namespace}/${name}`;
      let snap = await hub.get(key);
      if (!snap) throw noSnapshot(key);
      const query = req.query;
      const since = sinceVersion(query.since);
      // ?since= answers the delta from that version; it is also the version the client holds
      const have = since ?? etagVersion(req.headers['if-none-match']);
      const waitRaw = query.wait;
      if (have !== undefined && have >= snap.version && waitRaw !== undefined) {
        const seconds = Number(waitRaw);
        if (!Number.isFinite(seconds) || seconds < 0) throw new HttpError(400, `wait must be a number of seconds, got "${String(waitRaw)}"`);
        const abort = new AbortController();
        res.on('close', () => abort.abort());
        const newer = await hub.waitNewer(key, have, Math.min(seconds, MAX_WAIT_SECONDS) * 1000, abort.signal, since === undefined ? 'whole' : 'delta');
        if (newer) snap = newer;
      }
      res.setHeader('ETag', `"${snap.version}"`);
      res.setHeader('Cache-Control', 'no-cache');
      if (have !== undefined && have >= snap.version) return void res.status(304).end();
      const delta = since !== undefined ? await deltaBody(ctx, key, since, snap, a) : null;
      if (delta !== null) return void res.type('application/json').send(delta);
      const whole = await hub.whole(snap);
      if (!whole) throw noSnapshot(key);
      res.setHeader('ETag', `"${whole.version}"`);
      res.type('application/json').send(await body(ctx, whole, a));
    } catch (e) {
      next(e);
    }
  });

  r.get('/api/v1/namespaces/:namespace/gateways/:name/snapshot/watch', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/namespaces/:namespace/gateways/:name/snapshot/watch';
    let a: 'with-secrets' | 'without-secrets';
    const { namespace, name } = req.params as { namespace: string; name: string };
    const key = `${namespace}/${name}`;
    let release: () => void;
    let wantDelta: boolean;
    try {
      a = access(res.locals.principal, namespace, name);
      wantDelta = deltaWanted(req.query.delta);
      if (wantDelta) hub.deltas.want(key);
      release = ctx.limits.acquireSse(res.locals.principal);
    } catch (e) {
      return next(e);
    }
    const stream = openSse(req, res, ctx.sse);
    stream.onClose(release);
    stream.onClose(ctx.metrics.sseOpened('snapshot'));
    let sent = etagVersion(lastEventId(req)) ?? -1;
    let sending = Promise.resolve();
    const send = (snap: HeldSnapshot | null) => {
      sending = sending.then(async () => {
        if (!snap || snap.version <= sent || stream.closed) return;
        const from = sent;
        sent = snap.version;
        // a client that asked for deltas gets one from the version it holds, while that is recent enough
        const delta = wantDelta && from >= 0 ? await deltaFrameOf(ctx, key, from, snap, a) : null;
        if (delta !== null) return void await stream.sendFrame(delta);
        // else the worker's deltas in turn, when they are all kept, and this client is not sent
        // Secret data or no version of them names a Secret (the worker's texts carry none)
        const chain = wantDelta && from >= 0 ? hub.deltas.offeredChain(key, from, snap.version) : null;
        if (chain && (a === 'without-secrets' || (snap.secretRefs.length === 0 && !chain.some((step) => mayReferenceSecrets(step.text))))) {
          let at = from;
          for (const step of chain) {
            await stream.sendFrame(announcedFrame(key, at, step.to, step.text));
            at = step.to;
          }
          return;
        }
        const whole = await hub.whole(snap);
        if (!whole || stream.closed) return;
        sent = Math.max(sent, whole.version);
        await stream.sendFrame(await frameOf(ctx, whole, a));
      }).catch(() => stream.end());
    };
    const stop = hub.watch(key, send, wantDelta ? 'delta' : 'whole');
    stream.onClose(stop);
    if (wantDelta) {
      // a worker's delta from the version this client holds goes out as soon as it is announced
      stream.onClose(hub.watchDeltas(key, (from, to, text) => {
        sending = sending.then(async () => {
          if (sent !== from || stream.closed) return;
          sent = to;
          await stream.sendFrame(announcedFrame(key, from, to, text));
        }).catch(() => stream.end());
      }));
    }
    stream.comment('connected');
    send(await hub.get(key).catch(() => null));
  });

  r.post('/api/v1/namespaces/:namespace/gateways/:name/resolve', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/namespaces/:namespace/gateways/:name/resolve';
    try {
      const { namespace, name } = req.params as { namespace: string; name: string };
      const p: Principal = res.locals.principal;
      if (!canRead(p, 'Gateway', namespace, name)) throw new HttpError(403, `this token may not read Gateway ${namespace}/${name}`);
      const request = requireBody(req, res);
      if (!request || typeof request !== 'object' || Array.isArray(request)) throw new HttpError(400, 'the resolve body must be a JSON object');
      const held = await hub.get(`${namespace}/${name}`);
      const snap = held && await hub.whole(held);
      if (!snap) throw noSnapshot(`${namespace}/${name}`);
      const table = snap.table();
      const unattached = await unattachedOf(ctx.db, `${namespace}/${name}`);
      const answer = resolve(table, request, { canRead: (ns) => canRead(p, 'HTTPRoute', ns), unattached });
      res.setHeader('ETag', `"${snap.version}"`);
      res.json({ ...answer, snapshotVersion: snap.version });
    } catch (e) {
      next(e);
    }
  });
  return r;
}
