// What names this database among all others: the cluster's system identifier and the database's
// name. Every process of one deployment reads the same; another installation's database differs
// even on the same server.
import type { Database } from './database';

export async function databaseIdentity(db: Database): Promise<string> {
  try {
    const [row] = await db.sql.$queryRawUnsafe<{ id: string }[]>(
      `SELECT (SELECT system_identifier::text FROM pg_control_system()) || '/' || current_database() AS id`);
    return row.id;
  } catch {
    // an embedded database has no cluster of its own to name
    const [row] = await db.sql.$queryRawUnsafe<{ id: string }[]>(`SELECT current_database() AS id`);
    return `embedded/${row.id}`;
  }
}
