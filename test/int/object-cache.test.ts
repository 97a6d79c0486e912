// The worker's object cache: filled from the projection, then kept current from the log. It must
// end up holding what the projection holds, whatever commits late or is fed to it out of turn.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';
import { ObjectCache } from '../../src/adapters/store/object-cache';
import type { Database } from '../../src/adapters/store/database';
import { appendEvents } from '../../src/adapters/store/eventlog';
import { touchedBy } from '../../src/core/deps';

let s: TestServer;
let db: Database;
beforeAll(async () => {
  s = await startTestServer({}, { worker: false });
  db = s.running.ctx.db;
});
afterAll(async () => {
  await s?.close();
});

const route = (name: string, gateway: string, path = '/') => ({
  apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name, namespace: 'team' },
  spec: { parentRefs: [{ name: gateway, namespace: 'infra' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }] }] },
});
const put = async (o: any) => expect((await s.api('PUT', `/api/v1/namespaces/team/httproutes/${o.metadata.name}`, o)).status).toBeLessThan(300);
const names = (c: ObjectCache, gw: string) => [...c.routesNaming('infra', gw)].map((r) => `${r.metadata.name}:${(r.spec as any).rules[0].matches[0].path.value}`);

async function projection(): Promise<string[]> {
  const rows = await db.sql.$queryRawUnsafe<{ stream: string; version: number }[]>(`SELECT stream, version FROM objects WHERE NOT deleted ORDER BY stream`);
  return rows.map((r) => `${r.stream}@${r.version}`);
}

function held(c: ObjectCache): string[] {
  return c.ofKind('HTTPRoute', 'team').map((o) => `HTTPRoute/team/${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
}

it('follows writes, moves and deletes, indexed by the Gateways the routes name', async () => {
  const c = new ObjectCache(db);
  await put(route('a', 'gw1'));
  await c.sync();
  expect(names(c, 'gw1')).toEqual(['a:/']);
  await put(route('b', 'gw1', '/b'));
  await put(route('a', 'gw2', '/moved'));
  await c.sync();
  expect(names(c, 'gw1')).toEqual(['b:/b']);
  expect(names(c, 'gw2')).toEqual(['a:/moved']);
  expect((await s.api('DELETE', '/api/v1/namespaces/team/httproutes/b')).status).toBe(200);
  await c.sync();
  expect(names(c, 'gw1')).toEqual([]);
  // a cached object is frozen: no recompute can change what the next one reads
  expect(Object.isFrozen(c.routesNaming('infra', 'gw2').at(0)!.spec)).toBe(true);
});

it('ends up holding what the projection holds while writers race it, with a late commit among them', async () => {
  const c = new ObjectCache(db);
  await c.sync();
  // a transaction that appends first and commits after later ones: the tail must wait for it
  const lateRoute = { ...route('late', 'gw3', '/late'), metadata: { name: 'late', namespace: 'team', resourceVersion: '1', generation: 1 } };
  const late = db.transaction(async (tx) => {
    await appendEvents(tx, [{ stream: 'HTTPRoute/team/late', kind: 'HTTPRoute', namespace: 'team', name: 'late', version: 1, type: 'Created',
      actor: 'test', time: new Date().toISOString(), object: lateRoute as any, projection: lateRoute as any, touches: touchedBy('HTTPRoute', null, lateRoute) }]);
    await new Promise((r) => setTimeout(r, 300));
  });
  const writers = Array.from({ length: 4 }, async (_, w) => {
    for (let i = 0; i < 15; i++) {
      await put(route(`w${w}-${i % 5}`, 'gw3', `/v${i}`));
      if (i % 4 === 0) await c.sync();
    }
  });
  await Promise.all([...writers, late]);
  await c.sync();
  const want = (await projection()).filter((x) => x.startsWith('HTTPRoute/team/'));
  expect(want).toContain('HTTPRoute/team/late@1');
  expect(held(c)).toEqual(want);
});

it('takes fed events only when they continue what it holds', async () => {
  const c = new ObjectCache(db);
  await c.sync();
  const at = c.position;
  const obj = { ...route('fed', 'gw4', '/fed'), metadata: { name: 'fed', namespace: 'team', resourceVersion: '1' } };
  // a batch that starts after a gap is not taken: the cache would miss what lies in the gap
  c.feed(at + 10, [{ position: at + 11, stream: 'HTTPRoute/team/fed', type: 'Created', kind: 'HTTPRoute', namespace: 'team', object: obj as any }], at + 20);
  expect(names(c, 'gw4')).toEqual([]);
  expect(c.position).toBe(at);
  // one that continues it is, and moves the position to where the batch's reader had read
  c.feed(at, [{ position: at + 1, stream: 'HTTPRoute/team/fed', type: 'Created', kind: 'HTTPRoute', namespace: 'team', object: obj as any }], at + 5);
  expect(names(c, 'gw4')).toEqual(['fed:/fed']);
  expect(c.position).toBe(at + 5);
  // an event no newer than what is held for its stream changes nothing, a deletion included
  c.feed(at + 5, [{ position: at + 1, stream: 'HTTPRoute/team/fed', type: 'Deleted', kind: 'HTTPRoute', namespace: 'team', object: obj as any }], at + 6);
  expect(names(c, 'gw4')).toEqual(['fed:/fed']);
});
