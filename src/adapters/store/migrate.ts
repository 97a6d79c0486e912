// Applies prisma/migrations/*/migration.sql in name order, each once, recorded in _migrations.
// An advisory lock keeps two processes starting at once from applying the same migration twice.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { runtimePath } from '../../runtime/files';
import type { Database } from './database';
import { backfillTouches } from './touches-backfill';

const MIGRATIONS_DIR = runtimePath('migrations');
const LOCK_KEY = 7_340_001;

export function listMigrations(dir = MIGRATIONS_DIR): { name: string; sql: string }[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name, 'migration.sql'), 'utf8') }));
}

export async function migrate(db: Database): Promise<string[]> {
  const applied: string[] = [];
  // on the driver's own connection, not Prisma's: a process that never queries through Prisma never
  // loads its query compiler (some 60 MB of memory)
  await db.transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${LOCK_KEY})`);
    await tx.$executeRawUnsafe(
      `CREATE TABLE IF NOT EXISTS "_migrations" (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const done = new Set(
      (await tx.$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM "_migrations"`)).map((r) => r.name),
    );
    for (const m of listMigrations()) {
      if (done.has(m.name)) continue;
      for (const statement of splitStatements(m.sql)) await tx.$executeRawUnsafe(statement);
      await tx.$executeRawUnsafe(`INSERT INTO "_migrations" (name) VALUES ($1)`, m.name);
      applied.push(m.name);
    }
  });
  await backfillTouches(db.sql);
  return applied;
}

/** Our migrations keep one statement per `;` at a line end and no semicolons inside bodies. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0);
}
