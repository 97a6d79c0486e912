// Readiness: the database answers a statement, within a second (a server that does not answer
// at all would otherwise hold /readyz until the pool gives up connecting).
import type { SqlRunner } from './database';

const PING_TIMEOUT_MS = 1000;

export async function pingDatabase(db: Pick<SqlRunner, '$queryRawUnsafe'>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      db.$queryRawUnsafe('SELECT 1'),
      new Promise((_, rej) => { timer = setTimeout(() => rej(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS); }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
