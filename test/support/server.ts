// Starts the real service on a free port against a database of its own, and a small client for it.
import { pino, type Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config/env';
import { startServer, type Running } from '../../src/server';
import { openDatabase } from '../../src/adapters/store/database';
import { freshDatabaseUrl } from './database';
import { dropRedisPrefix } from './redis';
import { deploymentOf } from '../../src/adapters/queue/redis-keys';
import { databaseIdentity } from '../../src/adapters/store/database-identity';
import { tempDir } from './temp-dir';
import { pickPort, testPortRange } from './ports';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestServer {
  running: Running;
  url: string;
  databaseUrl?: string;
  api: Client;
  close(): Promise<void>;
}

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export type Client = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Reply>;

export function client(url: string, token: string | null = ADMIN_TOKEN): Client {
  return async (method, path, body, headers = {}) => {
    const h: Record<string, string> = { ...headers };
    if (token) h.authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    }
    const res = await fetch(url + path, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
}

/** `derivedPrefix`: the Redis prefix as a deployment derives it, instead of a fresh one per test server. */
/** `logger`: where the service logs (by default nowhere, or TEST_LOG_LEVEL's lines to stdout). */
/**
 * `sameDatabaseAs`: a second server on the first one's database, whichever mode runs: the real
 * PostgreSQL's database by its URL, or the embedded database's open handle (an in-memory database
 * has no URL, and a fresh one would be another deployment's first start).
 */
export async function startTestServer(overrides: Partial<Config> = {}, opts: { databaseUrl?: string; sameDatabaseAs?: TestServer; worker?: boolean; derivedPrefix?: boolean; logger?: Logger; keepWholeSnapshotMs?: number } = {}): Promise<TestServer> {
  const sharedUrl = opts.databaseUrl ?? opts.sameDatabaseAs?.databaseUrl;
  const sharedEmbedded = opts.sameDatabaseAs && !opts.sameDatabaseAs.databaseUrl ? opts.sameDatabaseAs.running.ctx.db : undefined;
  const fresh = sharedUrl || sharedEmbedded ? { url: sharedUrl, drop: async () => undefined } : await freshDatabaseUrl();
  const config: Config = {
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    databaseUrl: fresh.url,
    redisUrl: process.env.REDIS_URL || undefined,
    adminToken: ADMIN_TOKEN,
    dataDir: tempDir('sy-test-'),
    logLevel: process.env.TEST_LOG_LEVEL || 'silent',
    // tests set up the classes they need (one test checks the default: test/int/default-gateway-class.test.ts)
    defaultGatewayClass: null,
    // no xDS server unless a test asks for one (on a free port: see freePort)
    xdsPort: 0,
    ...overrides,
  };
  const ownDb = fresh.url || sharedEmbedded ? undefined : await openDatabase({ dataDir: 'memory://' });
  const db = sharedEmbedded ?? ownDb;
  const queuePrefix = opts.derivedPrefix ? undefined : `sy-test-${Math.random().toString(36).slice(2, 10)}`;
  const running = await startServer(config, { logger: opts.logger ?? pino({ level: config.logLevel }), db, worker: opts.worker, queuePrefix, keepWholeSnapshotMs: opts.keepWholeSnapshotMs });
  return {
    running,
    url: running.url,
    databaseUrl: fresh.url,
    api: client(running.url),
    async close() {
      // a prefix derived from a database this server made and drops is no one else's once it is gone
      const derived = !queuePrefix && !sharedUrl && fresh.url && config.redisUrl
        ? deploymentOf(await databaseIdentity(running.ctx.db), config.redisPrefix).prefix : undefined;
      await running.close();
      if (ownDb) await ownDb.close();
      await fresh.drop();
      // the queue's keys under this server's own prefix (a derived one may be another server's too)
      const prefix = queuePrefix ?? derived;
      if (prefix && config.redisUrl) await dropRedisPrefix(config.redisUrl, prefix).catch(() => undefined);
    },
  };
}

/** A token made by the admin (POST /api/v1/tokens, which must answer 201): its secret. */
export async function mintToken(s: TestServer, body: Record<string, unknown>): Promise<string> {
  const r = await s.api('POST', '/api/v1/tokens', body);
  if (r.status !== 201) throw new Error(`minting token ${JSON.stringify(body)}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.token as string;
}

/** Waits until the reconciler has caught up with everything written so far. */
export async function reconciled(s: TestServer, timeoutMs = 20_000): Promise<void> {
  const { caughtUp } = await import('../../src/adapters/store/checkpoints');
  const db = s.running.ctx.db;
  // every committed event, visible to readers yet or not
  const [{ p }] = await db.prisma.$queryRawUnsafe<{ p: bigint | null }[]>('SELECT max(position) AS p FROM events');
  const target = Number(p ?? 0);
  const deadline = Date.now() + timeoutMs;
  while (!(await caughtUp(db, target, s.running.ctx.config.controllerName))) {
    if (Date.now() > deadline) throw new Error(`the reconciler did not catch up with position ${target} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  // The worker commits a table before its notice reaches this API's snapshot cache: wait for the
  // cache too, so that a read right after this sees what the worker wrote.
  const { readSnapshotVersions } = await import('../../src/adapters/store/snapshot-reads');
  for (;;) {
    const held = s.running.ctx.snapshots.heldVersions();
    const stored = await readSnapshotVersions(db.sql, [...held.keys()].map((k) => `Gateway/${k}`));
    if ([...held].every(([k, v]) => v === (stored.get(`Gateway/${k}`) ?? null))) {
      // a whole table stored in place of its chain of deltas lands after the run that asked for it
      // (which has announced its version by now)
      await s.running.worker?.settled();
      return;
    }
    if (Date.now() > deadline) throw new Error(`the API's snapshot cache did not catch up with the stored snapshots within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A port free on loopback a moment ago (for servers whose port 0 means "none"); within TEST_PORT_RANGE when set. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const ranged = testPortRange() !== undefined;
  for (let attempt = 0; ranged && attempt < 20; attempt++) {
    const port = pickPort(20000, 20000);
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
