// Opens PostgreSQL through Prisma: the real server when DATABASE_URL is set, else an embedded
// PGlite kept on disk. Migrations need multi-statement SQL, which prepared statements refuse, so
// they go to the driver directly (`exec`).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { lockDataDir } from './data-dir-lock';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../generated/prisma/client';

export type Prisma = PrismaClient;

/** The two raw calls the store's statements use, shared by Prisma and the driver underneath it. */
export interface SqlRunner {
  $queryRawUnsafe<T = unknown>(sql: string, ...params: unknown[]): Promise<T>;
  $executeRawUnsafe(sql: string, ...params: unknown[]): Promise<number>;
  /** where the driver has them: a statement prepared once per connection under `name` (see Database.prepared) */
  prepared?<T = unknown>(name: string, sql: string, ...params: unknown[]): Promise<T>;
}

/** A hot insert: prepared where the runner can, else a plain query (see Database.prepared). */
export function queryPrepared<T>(db: Pick<SqlRunner, '$queryRawUnsafe' | 'prepared'>, name: string, sql: string, ...params: unknown[]): Promise<T> {
  return db.prepared ? db.prepared<T>(name, sql, ...params) : db.$queryRawUnsafe<T>(sql, ...params);
}

export interface Database {
  prisma: PrismaClient;
  /** single statements on the hot paths, sent on Prisma's own connection pool without its query engine */
  sql: SqlRunner;
  /**
   * A statement run often with the same text, prepared once per connection under `name` (parsed
   * once, not on every call), whose plan PostgreSQL may keep after five runs. Only for statements
   * whose plan depends neither on the values nor on the tables' sizes (inserts and upserts by
   * key): planning the log's append on every run cost PostgreSQL some 150-300 µs a write. A read's
   * kept plan is made for the tables as they were (a read of a few objects kept scanning `objects`
   * whole as it grew: 3.7 ms at 20,000 objects) and cannot hash an `= ANY` of a parameter (a
   * Gateway's 50,000 dependencies): reads go through `planned`. Embedded, a plain query.
   */
  prepared<T = unknown>(name: string, text: string, ...params: unknown[]): Promise<T>;
  /** A statement planned with its values on every run (unnamed); `label` names it to tests and traces. */
  planned<T = unknown>(label: string, text: string, ...params: unknown[]): Promise<T>;
  embedded: boolean;
  /**
   * A transaction of raw statements on one connection. On PostgreSQL it runs on the pool directly
   * (Prisma's interactive transactions add a round of engine work to every statement); embedded, it
   * is Prisma's transaction over PGlite.
   */
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>, opts?: { isolation?: 'RepeatableRead' | 'Serializable'; readOnly?: boolean }): Promise<T>;
  /** run a script of several statements (migrations, rebuild) */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

// BIGINT positions fit in a double for the lifetime of a cluster (xid < 2^33); read them as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

export async function openDatabase(opts: { url?: string; dataDir?: string; poolSize?: number }): Promise<Database> {
  if (opts.url) return openPostgres(opts.url, opts.poolSize ?? 10);
  return openEmbedded(opts.dataDir ?? join(process.cwd(), '.switchyard', 'pgdata'));
}

async function openPostgres(url: string, max: number): Promise<Database> {
  // A server that does not answer (a lost network, a host gone) fails requests after 10 s rather
  // than never; one that refuses (stopped, restarting) fails them at once. Either is a 503.
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 10_000 });
  // An idle connection the server closed (restart, failover) is replaced on next use; without a
  // listener its error would end the process.
  pool.on('error', () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const sql: SqlRunner = {
    async $queryRawUnsafe<T>(text: string, ...params: unknown[]) {
      return (await pool.query(text, params as unknown[])).rows as T;
    },
    async $executeRawUnsafe(text: string, ...params: unknown[]) {
      return (await pool.query(text, params as unknown[])).rowCount ?? 0;
    },
    async prepared<T>(name: string, text: string, ...params: unknown[]) {
      return (await pool.query({ name, text, values: params as unknown[] })).rows as T;
    },
  };
  const isolationSql = { RepeatableRead: 'REPEATABLE READ', Serializable: 'SERIALIZABLE' } as const;
  return {
    prisma,
    sql,
    prepared: sql.prepared!,
    planned: (_label, text, ...params) => sql.$queryRawUnsafe(text, ...params),
    embedded: false,
    async transaction(fn, opts = {}) {
      const client = await pool.connect();
      const tx: SqlRunner = {
        async $queryRawUnsafe<T>(text: string, ...params: unknown[]) {
          return (await client.query(text, params as unknown[])).rows as T;
        },
        async $executeRawUnsafe(text: string, ...params: unknown[]) {
          return (await client.query(text, params as unknown[])).rowCount ?? 0;
        },
        async prepared<T>(name: string, text: string, ...params: unknown[]) {
          return (await client.query({ name, text, values: params as unknown[] })).rows as T;
        },
      };
      let broken = false;
      try {
        const mode = [opts.isolation ? `ISOLATION LEVEL ${isolationSql[opts.isolation]}` : '', opts.readOnly ? 'READ ONLY' : ''].filter(Boolean).join(' ');
        await client.query(`BEGIN ${mode}`);
        const out = await fn(tx);
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => { broken = true; });
        throw e;
      } finally {
        client.release(broken);
      }
    },
    async exec(sql) {
      await pool.query(sql);
    },
    async close() {
      await prisma.$disconnect();
      await pool.end().catch(() => undefined);
    },
  };
}

async function openEmbedded(dir: string): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PrismaPGlite } = await import('pglite-prisma-adapter');
  const memory = dir === 'memory://';
  if (!memory) mkdirSync(dir, { recursive: true });
  const unlock = memory ? () => undefined : lockDataDir(dir);
  let db: InstanceType<typeof PGlite>;
  try {
    db = new PGlite(memory ? undefined : dir);
    await db.waitReady;
  } catch (e) {
    unlock();
    throw e;
  }
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(db) });
  return {
    prisma,
    sql: prisma as unknown as SqlRunner,
    prepared<T>(_name: string, text: string, ...params: unknown[]) {
      return prisma.$queryRawUnsafe<T>(text, ...params);
    },
    planned<T>(_label: string, text: string, ...params: unknown[]) {
      return prisma.$queryRawUnsafe<T>(text, ...params);
    },
    embedded: true,
    transaction(fn) {
      return prisma.$transaction((tx) => fn(tx as unknown as SqlRunner), { timeout: 600_000, maxWait: 60_000 });
    },
    async exec(sql) {
      await db.exec(sql);
    },
    async close() {
      await prisma.$disconnect();
      await db.close();
      unlock();
    },
  };
}
