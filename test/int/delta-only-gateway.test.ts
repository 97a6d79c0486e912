// A Gateway whose clients all take deltas: the API sends the worker's deltas and holds no body of
// the versions they lead to (nor the parts a body is made from). What it is asked for later is
// still right: a whole GET, a whole watch and resolve read the store's version; a resume gets the
// worker's deltas one after the other; a table that names Secrets is held whole as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, reconciled, startTestServer, type TestServer } from '../support/server';
import { sse, type SseClient } from '../support/sse';
import { edgeGateway, edgeRoute, GW, seedEdgeGateway } from '../support/edge-gateway';
import { tableOfParts, tableParts, type TableParts } from '../../src/core/snapshot/table-parts';
import { applyDelta, type SnapshotDelta } from '../../src/core/snapshot/delta';
import { hasBody, SnapshotHub } from '../../src/adapters/delivery/snapshots';
import { InProcessBus } from '../../src/adapters/delivery/bus';
import { publish, SNAPSHOT_CHANNEL, snapshotDeltaChannel, snapshotNotice } from '../../src/adapters/delivery/channels';
import type { Snapshot } from '../../src/core/compile/types';

let s: TestServer;
const KEY = 'infra/edge';
const SNAP = `/api/v1/namespaces/${KEY.replace('/', '/gateways/')}/snapshot`;
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

const route = edgeRoute;
const put = async (p: string, b: unknown) => expect((await s.api('PUT', p, b)).status).toBeLessThan(300);
const held = async (key = KEY) => (await s.running.ctx.snapshots.get(key))!;
/** the version this process serves once it reaches `version` (a delta goes out to watchers before it is applied here) */
async function heldAt(version: number, key = KEY) {
  for (const deadline = Date.now() + 5_000; (await held(key)).version < version && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 10));
  const now = await held(key);
  expect(now.version).toBe(version);
  return now;
}

/** A client's table: the whole snapshot it took, then the deltas it applied, each checked against its hash. */
interface Client { version: number; parts: TableParts }
const taking = (snap: Snapshot): Client => ({ version: snap.version, parts: tableParts(snap.table) });
function apply(c: Client, d: SnapshotDelta): Client {
  expect(d.fromVersion).toBe(c.version);
  return { version: d.version, parts: applyDelta(c.parts, c.version, d, []).parts };
}
const tableOf = (c: Client) => JSON.stringify(tableOfParts(c.parts));

async function nextDelta(w: SseClient): Promise<SnapshotDelta> {
  const ev = await w.next();
  expect(ev.event).toBe('delta');
  const d = JSON.parse(ev.data) as SnapshotDelta;
  expect(Number(ev.id)).toBe(d.version);
  return d;
}

beforeAll(async () => {
  // nothing is kept for whole snapshots once none is asked for: every version a delta leads to is held without its body
  s = await startTestServer({}, { keepWholeSnapshotMs: 0 });
  await seedEdgeGateway(s, 20);
});
afterAll(async () => {
  await s?.close();
});

describe('a Gateway served as deltas alone', () => {
  it('holds no body of the versions its deltas lead to, and a whole GET, resolve and a resume still get the right table', async () => {
    const w = await sse(`${s.url}${SNAP}/watch?delta=true`, auth);
    let c: Client;
    let first: Client;
    try {
      const ev = await w.next();
      expect(ev.event).toBe('snapshot');
      c = first = taking(JSON.parse(ev.data));
      for (const k of [1, 2, 3]) {
        await put(`/api/v1/namespaces/app/httproutes/r${k}`, route(`/moved${k}`));
        c = apply(c, await nextDelta(w));
      }
    } finally {
      w.close();
    }
    const now = await heldAt(c.version);
    expect(hasBody(now), 'the version reached by deltas is held with its body').toBe(false);

    // a whole GET reads the store's version: the table the deltas led to
    const whole = await s.api('GET', SNAP);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('etag')).toBe(`"${c.version}"`);
    expect(whole.body.version).toBe(c.version);
    expect(JSON.stringify(whole.body.table)).toBe(tableOf(c));
    expect((await s.api('GET', SNAP, undefined, { 'if-none-match': `"${c.version}"` })).status).toBe(304);

    const answer = await s.api('POST', `${SNAP.replace('/snapshot', '')}/resolve`, { method: 'GET', hostname: 'x.example', path: '/moved2/a' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ snapshotVersion: c.version });
    expect(JSON.stringify(answer.body)).toContain('"r2"');

    // a client three versions behind gets the worker's three deltas in turn, not the whole table
    const resumed = await sse(`${s.url}${SNAP}/watch?delta=true`, { ...auth, 'last-event-id': String(first.version) });
    try {
      let r = first;
      while (r.version < c.version) r = apply(r, await nextDelta(resumed));
      expect(tableOf(r)).toBe(tableOf(c));
    } finally {
      resumed.close();
    }
    // and GET ?since= the version before answers the worker's delta
    const since = await s.api('GET', `${SNAP}?since=${c.version - 1}`);
    expect(since.body.fromVersion).toBe(c.version - 1);
    expect(since.body.version).toBe(c.version);
  });

  it('a whole watch that comes later gets the table whole, every change after it whole, and deltas go bodiless again once it leaves', async () => {
    const w = await sse(`${s.url}${SNAP}/watch`, auth);
    let version: number;
    try {
      const ev = await w.next();
      expect(ev.event).toBe('snapshot');
      const start = JSON.parse(ev.data) as Snapshot;
      expect(start.version).toBe((await held()).version);
      await put('/api/v1/namespaces/app/httproutes/r4', route('/whole4'));
      const next = await w.next();
      expect(next.event).toBe('snapshot');
      const snap = JSON.parse(next.data) as Snapshot;
      expect(JSON.stringify(snap.table)).toContain('/whole4');
      version = snap.version;
      expect(hasBody(await heldAt(version)), 'while a whole watch is open').toBe(true);
      expect(JSON.stringify(snap.table)).toBe(JSON.stringify((await s.api('GET', SNAP)).body.table));
    } finally {
      w.close();
    }
    await new Promise((r) => setTimeout(r, 50));
    await put('/api/v1/namespaces/app/httproutes/r5', route('/after5'));
    await reconciled(s);
    expect(hasBody(await heldAt(version + 1)), 'after the whole watch left').toBe(false);
  });

  it('a change that goes out as a delta is announced without its body, and a whole watch still gets the table whole', async () => {
    const notices: string[] = [];
    const stop = s.running.ctx.bus.subscribe(SNAPSHOT_CHANNEL, (text) => void notices.push(text));
    const w = await sse(`${s.url}${SNAP}/watch`, auth);
    try {
      expect((await w.next()).event).toBe('snapshot');
      await put('/api/v1/namespaces/app/httproutes/r6', route('/notice6'));
      const next = await w.next();
      expect(next.event).toBe('snapshot');
      const snap = JSON.parse(next.data) as Snapshot;
      expect(JSON.stringify(snap.table)).toContain('/notice6');
      expect(JSON.stringify(snap.table)).toBe(JSON.stringify((await s.api('GET', SNAP)).body.table));
      const notice = notices.find((n) => JSON.parse(n.split('\n')[0]).version === snap.version);
      expect(notice, 'the notice of the new version').toBe(snapshotNotice(KEY, snap.version));
    } finally {
      w.close();
      stop();
    }
  });

  it('a large table nobody took whole for a while is held without its body, until a whole snapshot is asked for again', async () => {
    // a process of its own that counts every table as large, and holds a whole one for 100 ms
    const other = new SnapshotHub(s.running.ctx.db, s.running.ctx.bus, { keepWholeMs: 100, pollMs: 20, largeBytes: 0 });
    const small = new SnapshotHub(s.running.ctx.db, s.running.ctx.bus, { keepWholeMs: 100, pollMs: 20 });
    const watched = new SnapshotHub(s.running.ctx.db, s.running.ctx.bus, { keepWholeMs: 100, pollMs: 20, largeBytes: 0 });
    try {
      const first = (await other.get(KEY))!;
      expect(hasBody(first), 'a version read from the store').toBe(true);
      const body = (await other.whole(first))!.body;
      await small.get(KEY);
      await watched.get(KEY);
      const stop = watched.watch(KEY, () => undefined, 'whole');
      // keepWholeMs and a few ticks (more on a loaded machine), and as long again for the others
      for (const deadline = Date.now() + 5_000; hasBody((await other.get(KEY))!) && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 200));
      const later = (await other.get(KEY))!;
      expect(later.version).toBe(first.version);
      expect(hasBody(later), 'let go of once nobody took it whole for keepWholeMs').toBe(false);
      expect(later.hash).toBe(JSON.parse(body).hash);
      expect(hasBody((await small.get(KEY))!), 'a table small enough for a notice is kept').toBe(true);
      expect(hasBody((await watched.get(KEY))!), 'a table a whole watch takes is kept').toBe(true);
      stop();
      // asked for again: read from the store, the same body
      const again = (await other.whole(later))!;
      expect(again.body).toBe(body);
      expect(hasBody((await other.get(KEY))!)).toBe(true);
      // a delta client is still answered from the version held without its body
      expect((await s.api('GET', `${SNAP}?since=${first.version}`)).status).toBe(304);
    } finally {
      other.close();
      small.close();
      watched.close();
    }
  });

  it('a process that missed the notices (started since, or cut off from Redis) sends the stored deltas in turn', async () => {
    // a table large enough that three deltas stay stored as deltas (a chain is cut at a quarter of the table)
    const onBig = (path: string) => route(path, 'big');
    await put('/api/v1/namespaces/infra/gateways/big', edgeGateway());
    const items = Array.from({ length: 200 }, (_, i) => ({ ...onBig(`/big${i}`), metadata: { namespace: 'app', name: `big${i}` } }));
    expect((await s.api('POST', '/api/v1/apply', { items })).status).toBeLessThan(300);
    await reconciled(s);
    const BIG = '/api/v1/namespaces/infra/gateways/big/snapshot';
    const w = await sse(`${s.url}${BIG}/watch?delta=true`, auth);
    const sent: SnapshotDelta[] = [];
    let start: number;
    try {
      start = (JSON.parse((await w.next()).data) as Snapshot).version;
      for (const k of [1, 2, 3]) {
        await put(`/api/v1/namespaces/app/httproutes/big${k}`, onBig(`/big${k}/moved`));
        sent.push(await nextDelta(w));
      }
    } finally {
      w.close();
    }
    const other = new SnapshotHub(s.running.ctx.db, s.running.ctx.bus);
    try {
      const now = (await other.get('infra/big'))!;
      expect(now.version).toBe(sent[2].version);
      const chain = other.deltas.offeredChain('infra/big', start, now.version);
      expect(chain?.map((step) => JSON.parse(step.text))).toEqual(sent);
    } finally {
      other.close();
    }
  });

  it('deltas that come in one read of the bus are applied in turn, and nothing is read from the store for them', async () => {
    // a process of its own, on a bus this test speaks on: the notices of two versions arrive
    // back to back, before the first delta has been applied
    const bus = new InProcessBus();
    const other = new SnapshotHub(s.running.ctx.db, bus, { keepWholeMs: 0 });
    try {
      const start = (await other.get('infra/big'))!;
      const stop = other.watch('infra/big', () => undefined, 'delta');
      const w = await sse(`${s.url}/api/v1/namespaces/infra/gateways/big/snapshot/watch?delta=true`, { ...auth, 'last-event-id': String(start.version) });
      const sent: { from: number; to: number; text: string }[] = [];
      try {
        for (const k of [4, 5]) {
          await put(`/api/v1/namespaces/app/httproutes/big${k}`, route(`/big${k}/moved`, 'big'));
          const ev = await w.next();
          const d = JSON.parse(ev.data) as SnapshotDelta;
          sent.push({ from: d.fromVersion, to: d.version, text: ev.data });
        }
      } finally {
        w.close();
      }
      expect(sent[0].from).toBe(start.version);
      for (const d of sent) publish(bus, snapshotDeltaChannel, { gateway: 'infra/big', ...d });
      for (const d of sent) bus.publish(SNAPSHOT_CHANNEL, snapshotNotice('infra/big', d.to));
      await new Promise((r) => setTimeout(r, 100));
      const now = (await other.get('infra/big'))!;
      expect(now.version).toBe(sent[1].to);
      // a version read from the store would be held with its body
      expect(hasBody(now), 'the second delta was applied, not the store read').toBe(false);
      stop();
    } finally {
      other.close();
    }
  });

  it('a table that names Secrets is held with its body: its Secrets are read for every version', async () => {
    const b64 = (t: string) => Buffer.from(t).toString('base64');
    await put('/api/v1/namespaces/infra/secrets/cert', { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', data: { 'tls.crt': b64('cert'), 'tls.key': b64('key') } });
    await put('/api/v1/namespaces/infra/gateways/tls', { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'https', port: 443, protocol: 'HTTPS', hostname: 'tls.example', tls: { certificateRefs: [{ name: 'cert' }] }, allowedRoutes: { namespaces: { from: 'All' } } }] } });
    await put('/api/v1/namespaces/app/httproutes/t1', route('/t1', 'tls'));
    await reconciled(s);
    const w = await sse(`${s.url}/api/v1/namespaces/infra/gateways/tls/snapshot/watch?delta=true`, auth);
    try {
      const first = JSON.parse((await w.next()).data) as Snapshot & { secrets: unknown[] };
      expect(first.secrets).toHaveLength(1);
      await put('/api/v1/namespaces/app/httproutes/t1', route('/t1/changed', 'tls'));
      const d = await nextDelta(w);
      expect(d.fromVersion).toBe(first.version);
      expect(d.secrets).toHaveLength(1);
      expect(hasBody(await heldAt(d.version, 'infra/tls'))).toBe(true);
    } finally {
      w.close();
    }
  });
});
