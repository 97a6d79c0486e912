// Delta delivery over the real server: a watch with ?delta=true gets the whole snapshot on connect,
// then only what changed, each delta applying to the version before it and hashing as the new
// snapshot does; a resume from too far behind gets the whole snapshot; GET ?since= answers the same
// delta; and clients that never ask keep getting whole snapshots, with ETag and 304 as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, reconciled, startTestServer, type TestServer } from '../support/server';
import { sse } from '../support/sse';
import { edgeGateway, edgeRoute, GW, seedEdgeGateway } from '../support/edge-gateway';
import { tableParts, type TableParts } from '../../src/core/snapshot/table-parts';
import { applyDelta, type SnapshotDelta } from '../../src/core/snapshot/delta';
import type { Snapshot } from '../../src/core/compile/types';

let s: TestServer;
const SNAP = '/api/v1/namespaces/infra/gateways/edge/snapshot';
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

const route = (path: string) => edgeRoute(path);
const put = async (p: string, b: unknown) => expect((await s.api('PUT', p, b)).status).toBeLessThan(300);

beforeAll(async () => {
  s = await startTestServer();
  await seedEdgeGateway(s, 30);
});
afterAll(async () => {
  await s?.close();
});

/**
 * The held table after a delta, checked against its hash; and it is what a whole GET gives (a
 * worker's delta may reach the watch before the API has loaded the whole body it leads to).
 */
async function applied(held: { version: number; parts: TableParts }, d: SnapshotDelta) {
  const out = applyDelta(held.parts, held.version, d, []);
  let whole = (await s.api('GET', SNAP)).body as Snapshot;
  for (const deadline = Date.now() + 10_000; whole.version < d.version && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 20));
    whole = (await s.api('GET', SNAP)).body as Snapshot;
  }
  expect(whole.version).toBe(d.version);
  expect(JSON.stringify(out.table)).toBe(JSON.stringify(whole.table));
  return { version: d.version, parts: out.parts };
}

describe('delta delivery', () => {
  it('watch ?delta=true: the whole snapshot on connect, then deltas of the change alone', async () => {
    const w = await sse(`${s.url}${SNAP}/watch?delta=true`, auth);
    try {
      const first = await w.next();
      expect(first.event).toBe('snapshot');
      const snap = JSON.parse(first.data) as Snapshot;
      let held = { version: snap.version, parts: tableParts(snap.table) };
      const fullBytes = first.data.length;

      await put('/api/v1/namespaces/app/httproutes/r7', route('/changed'));
      const ev = await w.next();
      expect(ev.event).toBe('delta');
      const d = JSON.parse(ev.data) as SnapshotDelta;
      expect(Number(ev.id)).toBe(d.version);
      expect(d.fromVersion).toBe(held.version);
      // the route's generation moved and its entry with the new match moved; its rule is the same
      expect(d.changes.map((c) => [c.collection, c.removed.length, c.added.length, c.replaced.length])).toEqual([['routes', 0, 0, 1], ['entries', 1, 1, 0]]);
      expect(ev.data.length).toBeLessThan(fullBytes / 4);
      held = await applied(held, d);

      await put('/api/v1/namespaces/app/httproutes/new', route('/new'));
      const added = JSON.parse((await w.next()).data) as SnapshotDelta;
      expect(added.fromVersion).toBe(held.version);
      expect(added.changes.map((c) => [c.collection, c.added.length])).toEqual([['routes', 1], ['rules', 1], ['entries', 1]]);
      held = await applied(held, added);

      expect((await s.api('DELETE', '/api/v1/namespaces/app/httproutes/r3')).status).toBeLessThan(300);
      const removed = JSON.parse((await w.next()).data) as SnapshotDelta;
      expect(removed.changes.map((c) => [c.collection, c.removed])).toEqual([
        ['routes', ['HTTPRoute/app/r3']], ['rules', ['HTTPRoute/app/r3#0']], ['entries', ['HTTPRoute/app/r3#0|0|']],
      ]);
      await applied(held, removed);
    } finally {
      w.close();
    }
  });

  it('a resume gets the delta from the version it names, or the whole snapshot when too far behind', async () => {
    const cur = (await s.api('GET', SNAP)).body as Snapshot;
    await put('/api/v1/namespaces/app/httproutes/r1', route('/resumed'));
    await reconciled(s);
    const w = await sse(`${s.url}${SNAP}/watch?delta=true`, { ...auth, 'last-event-id': String(cur.version) });
    const ev = await w.next();
    w.close();
    expect(ev.event).toBe('delta');
    await applied({ version: cur.version, parts: tableParts(cur.table) }, JSON.parse(ev.data));

    const behind = await sse(`${s.url}${SNAP}/watch?delta=true`, { ...auth, 'last-event-id': '1' });
    const whole = await behind.next();
    behind.close();
    expect(whole.event).toBe('snapshot');
    expect(JSON.parse(whole.data).version).toBeGreaterThan(cur.version);
  });

  it('GET ?since= answers the same delta, 304 when current, the whole snapshot when too far behind', async () => {
    const cur = (await s.api('GET', SNAP)).body as Snapshot;
    const w = await sse(`${s.url}${SNAP}/watch?delta=true`, { ...auth, 'last-event-id': String(cur.version) });
    await put('/api/v1/namespaces/app/httproutes/r2', route('/since'));
    const ev = await w.next();
    w.close();
    const r = await s.api('GET', `${SNAP}?since=${cur.version}&wait=10`);
    expect(r.status).toBe(200);
    expect(r.headers.get('etag')).toBe(`"${r.body.version}"`);
    expect(JSON.stringify(r.body)).toBe(ev.data);
    await applied({ version: cur.version, parts: tableParts(cur.table) }, r.body);
    expect((await s.api('GET', `${SNAP}?since=${r.body.version}`)).status).toBe(304);
    const far = await s.api('GET', `${SNAP}?since=1`);
    expect(far.status).toBe(200);
    expect(far.body.table).toBeDefined();
    expect(far.body.fromVersion).toBeUndefined();
    expect((await s.api('GET', `${SNAP}?since=x`)).status).toBe(400);
    expect((await s.api('GET', `${SNAP}/watch?delta=maybe`)).status).toBe(400);
  });

  it('the worker makes the delta: one is answered for a Gateway nobody asked a delta of before', async () => {
    const OTHER = '/api/v1/namespaces/infra/gateways/other/snapshot';
    await put('/api/v1/namespaces/infra/gateways/other', edgeGateway());
    const onOther = (path: string) => ({ ...route(path), spec: { ...route(path).spec, parentRefs: [{ name: 'other', namespace: 'infra' }] } });
    await put('/api/v1/namespaces/app/httproutes/o1', onOther('/o1'));
    await reconciled(s);
    const cur = (await s.api('GET', OTHER)).body as Snapshot;
    await put('/api/v1/namespaces/app/httproutes/o2', onOther('/o2'));
    await reconciled(s);
    // this process kept no earlier version of "other" (no delta was asked of it): the delta is the worker's
    const r = await s.api('GET', `${OTHER}?since=${cur.version}&wait=10`);
    expect(r.body.fromVersion).toBe(cur.version);
    const out = applyDelta(tableParts(cur.table), cur.version, r.body, []);
    expect(JSON.stringify(out.table)).toBe(JSON.stringify((await s.api('GET', OTHER)).body.table));
  });

  it('clients that never ask keep getting whole snapshots, with ETag and 304', async () => {
    const w = await sse(`${s.url}${SNAP}/watch`, auth);
    expect((await w.next()).event).toBe('snapshot');
    await put('/api/v1/namespaces/app/httproutes/r4', route('/plain'));
    const ev = await w.next();
    w.close();
    expect(ev.event).toBe('snapshot');
    expect(JSON.parse(ev.data).table).toBeDefined();
    const r = await s.api('GET', SNAP);
    expect(r.body.table).toBeDefined();
    expect((await s.api('GET', SNAP, undefined, { 'if-none-match': r.headers.get('etag')! })).status).toBe(304);
  });
});
