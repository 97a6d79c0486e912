// Each test file gets a database of its own: a fresh one on the real PostgreSQL when DATABASE_URL
// is set, else an in-memory embedded PostgreSQL.
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';

export const REAL_PG = Boolean(process.env.DATABASE_URL);
export const REAL_REDIS = Boolean(process.env.REDIS_URL);

export async function freshDatabaseUrl(): Promise<{ url?: string; drop: () => Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) return { url: undefined, drop: async () => undefined };
  const name = `sy_t_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

let redisServer: boolean | undefined;
const hasRedisServer = () => (redisServer ??= spawnSync('redis-server', ['--version']).status === 0);

/**
 * Whether a test can run here: it needs a real part that is not configured (DATABASE_URL,
 * REDIS_URL) or a binary that is not installed (redis-server, for tests that start and kill one).
 */
export function needs(what: { pg?: boolean; redis?: boolean; redisServer?: boolean }): { skip: boolean; why: string } {
  const missing = [what.pg && !REAL_PG ? 'DATABASE_URL' : '', what.redis && !REAL_REDIS ? 'REDIS_URL' : '',
    what.redisServer && !hasRedisServer() ? 'the redis-server binary' : ''].filter(Boolean);
  return { skip: missing.length > 0, why: missing.length ? `needs ${missing.join(' and ')}` : '' };
}

/**
 * The title of a test that `need` may skip: when it does, the reason is in the title (the
 * reporter shows it) and printed once, so that a skip never goes unexplained.
 */
export function skippable(need: { skip: boolean; why: string }, title: string): string {
  if (!need.skip) return title;
  console.log(`skipped: "${title}" (${need.why})`);
  return `${title} (skipped: ${need.why})`;
}
