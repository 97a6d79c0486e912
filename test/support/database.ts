// Each test file gets a database of its own: a fresh one on the real PostgreSQL when DATABASE_URL
// is set, else an in-memory embedded PostgreSQL.
import pg from 'pg';
import { randomBytes } from 'node:crypto';

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

/** Skips a test by name, saying why, when it needs a real part that is not configured. */
export function needs(what: { pg?: boolean; redis?: boolean }): { skip: boolean; why: string } {
  const missing = [what.pg && !REAL_PG ? 'DATABASE_URL' : '', what.redis && !REAL_REDIS ? 'REDIS_URL' : ''].filter(Boolean);
  return { skip: missing.length > 0, why: missing.length ? `needs ${missing.join(' and ')}` : '' };
}
