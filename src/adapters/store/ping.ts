// Readiness: the database answers a statement.
import type { SqlRunner } from './database';

export async function pingDatabase(db: Pick<SqlRunner, '$queryRawUnsafe'>): Promise<void> {
  await db.$queryRawUnsafe('SELECT 1');
}
