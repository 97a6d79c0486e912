// The dependency keys each Gateway's last recompute recorded, read the other way round.
import type { Database } from './database';
import { scoped } from './scope';

/** The recompute keys (unscoped) of this controller's Gateways that recorded any of `keys`. */
export async function gatewaysDependingOn(db: Database, scope: string, keys: readonly string[]): Promise<string[]> {
  const prefix = scoped(scope, '');
  const rows = await db.sql.$queryRawUnsafe<{ gateway: string }[]>(
    `SELECT DISTINCT gateway FROM gateway_deps WHERE dep = ANY($1::text[]) AND starts_with(gateway, $2)`, keys, prefix);
  return rows.map((r) => r.gateway.slice(prefix.length));
}
