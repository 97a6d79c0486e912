// Concurrent writers, some of whose transactions commit late, and a reader tailing the log: the
// reader must see every event exactly once, in strictly increasing positions.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';
import { appendEvents } from '../../src/adapters/store/eventlog';
import { needs } from '../support/database';

// the embedded database has one connection: there, transactions cannot interleave, and the part
// that commits late is left out (the writers still run)
const lateCommits = needs({ pg: true });
const REAL_PG = !lateCommits.skip;
if (lateCommits.skip) console.log(`skipped: the late-committing transactions of the event log tail test (${lateCommits.why})`);

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

const WRITERS = 8;
const PER_WRITER = 60;

function svc(name: string, i: number) {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, labels: { i: String(i) } }, spec: { ports: [{ port: 80 }] } };
}

it(`a tailing reader sees every event of ${WRITERS} concurrent writers exactly once${lateCommits.skip ? ` (late commits skipped: ${lateCommits.why})` : ', some committing late'}`, async () => {
  const expected = WRITERS * PER_WRITER + (REAL_PG ? 15 : 0);
  // Readers see a transaction's events once every older transaction on the server has ended: on a
  // PostgreSQL others use too, an open transaction of theirs holds that horizon back for a while
  // (never loses an event). So once the writers are done, the reads go on until all are seen, for
  // at most this long.
  const HORIZON_GRACE_MS = 30_000;
  let graceUntil = Infinity;
  const seen: number[] = [];
  let done = false;
  let cursor = 0;
  const reader = (async () => {
    for (;;) {
      const finished = done;
      const r = await s.api('GET', `/api/v1/events?after=${cursor}&limit=50`);
      expect(r.status).toBe(200);
      for (const ev of r.body.items) seen.push(ev.position);
      cursor = r.body.next;
      if (finished && r.body.items.length === 0 && (seen.length >= expected || Date.now() > graceUntil)) return;
      if (r.body.items.length === 0) await new Promise((res) => setTimeout(res, 2));
    }
  })();

  const writers = Array.from({ length: WRITERS }, async (_, w) => {
    for (let i = 0; i < PER_WRITER; i++) {
      const r = await s.api('PUT', `/api/v1/namespaces/tail/services/w${w}-${i % 5}`, svc(`w${w}-${i % 5}`, i));
      // each writer cycles through five names: the first round creates them, the rest replace
      expect(r.status).toBe(i < 5 ? 201 : 200);
    }
  });
  // Transactions that take their position early and commit late: the case a plain sequence gets wrong.
  const slow = (async () => {
    if (!REAL_PG) return;
    for (let i = 0; i < 15; i++) {
      await s.running.ctx.db.prisma.$transaction(async (tx) => {
        const o = svc(`slow-${i}`, i);
        await appendEvents(tx, [{ stream: `Service/tail/slow-${i}`, kind: 'Service', namespace: 'tail', name: `slow-${i}`, version: 1, type: 'Created', actor: 'test', time: new Date().toISOString(), object: o as any, projection: o as any, touches: [] }]);
        await tx.$executeRawUnsafe('SELECT pg_sleep(0.03)');
      });
    }
  })();
  await Promise.all([...writers, slow]);
  graceUntil = Date.now() + HORIZON_GRACE_MS;
  done = true;
  await reader;

  const readAll = async (): Promise<number[]> => {
    const out: number[] = [];
    for (let after = 0; ;) {
      const r = await s.api('GET', `/api/v1/events?after=${after}&limit=1000`);
      out.push(...r.body.items.map((e: any) => e.position));
      if (r.body.items.length < 1000) return out;
      after = r.body.next;
    }
  };
  let all = await readAll();
  while (all.length < expected && Date.now() < graceUntil) {
    await new Promise((res) => setTimeout(res, 20));
    all = await readAll();
  }
  expect(all.length).toBe(expected);
  expect(new Set(seen).size).toBe(seen.length); // never twice
  expect(seen).toEqual(all); // every one, in log order
  for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]);
}, 120_000);
