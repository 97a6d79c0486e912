// The sweep against the real store and the in-process queue: a key the store shows wanted above
// what its last recompute read is asked for again once it made no progress for a sweep, then less
// and less often; a key whose wanted position moves (its requests are flowing) or that caught up is
// left alone.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../support/database';
import { openDatabase, type Database } from '../../src/adapters/store/database';
import { migrate } from '../../src/adapters/store/migrate';
import { scoped } from '../../src/adapters/store/scope';
import { InProcessQueue } from '../../src/adapters/queue/in-process';
import { BehindSweep } from '../../src/adapters/queue/sweep';

const SCOPE = 'switchyard.dev/gateway-controller';
let fresh: Awaited<ReturnType<typeof freshDatabaseUrl>>;
let db: Database;
const runs: string[] = [];
const queue = new InProcessQueue(2);

beforeAll(async () => {
  fresh = await freshDatabaseUrl();
  db = await openDatabase(fresh.url ? { url: fresh.url } : { dataDir: 'memory://' });
  await migrate(db);
  // a recompute that reads nothing new: the key stays behind however often it runs
  queue.start(async (key) => {
    runs.push(key);
    return { read: 0 };
  });
});
afterAll(async () => {
  await queue.close();
  await db?.close();
  await fresh?.drop();
});

async function want(key: string, position: number, read?: number): Promise<void> {
  await db.sql.$executeRawUnsafe(`INSERT INTO reconcile_wants (key, position) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET position = excluded.position`, scoped(SCOPE, key), position);
  if (read !== undefined) await db.sql.$executeRawUnsafe(`INSERT INTO recomputes (gateway, source_position, at) VALUES ($1, $2, now())`, scoped(SCOPE, key), read);
}

it('asks again for keys stuck behind, backing off, and leaves moving or caught-up keys alone', async () => {
  await want('Gateway/infra/lost', 10);
  await want('Gateway/infra/stale', 30, 5);
  await want('Gateway/infra/done', 20, 25);
  await want('Gateway/other/elsewhere', 50);
  await db.sql.$executeRawUnsafe(`INSERT INTO reconcile_wants (key, position) VALUES ($1, 99)`, scoped('another-controller', 'Gateway/infra/lost'));
  const sweep = new BehindSweep(db, queue, { scope: SCOPE });
  const keys = async (now: number) => (await sweep.sweep(now)).map((k) => k.key).sort();

  expect(await keys(0)).toEqual([]); // first seen: its requests may still be on their way
  await want('Gateway/other/elsewhere', 60); // moving
  expect(await keys(1000)).toEqual(['Gateway/infra/lost', 'Gateway/infra/stale']);
  await until(() => runs.includes('Gateway/infra/lost') && runs.includes('Gateway/infra/stale'));
  expect(await keys(1500)).toEqual(['Gateway/other/elsewhere']); // not moving since 1000
  expect(await keys(2000)).toEqual(['Gateway/infra/lost', 'Gateway/infra/stale']);
  expect(await keys(3000)).toEqual(['Gateway/other/elsewhere']); // the others wait 2 s now
  expect(await keys(4000)).toEqual(['Gateway/infra/lost', 'Gateway/infra/stale']);
  expect(await keys(7000)).toEqual(['Gateway/other/elsewhere']); // ... then 4 s
  expect(await keys(8000)).toEqual(['Gateway/infra/lost', 'Gateway/infra/stale']);

  // asked for again (its position moved) or caught up: no longer stuck
  await want('Gateway/infra/lost', 70);
  await db.sql.$executeRawUnsafe(`UPDATE recomputes SET source_position = 40 WHERE gateway = $1`, scoped(SCOPE, 'Gateway/infra/stale'));
  expect(await keys(16_000)).toEqual(['Gateway/other/elsewhere']);
  expect(await keys(17_000)).toEqual(['Gateway/infra/lost']);
});

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok()).toBe(true);
}
