// What a rebuild of the reconciler's projections needs from the store: dropping them, and the
// Gateways and GatewayClasses to recompute. snapshot_versions is kept (see service/rebuild.ts).
import type { Database } from './database';

export async function dropReconciledProjections(db: Database): Promise<void> {
  await db.exec(`TRUNCATE status_parts, snapshots, snapshot_deltas, gateway_deps, recomputes, reconcile_wants`);
}

/** Live Gateways and GatewayClasses, in kind, namespace, name order. */
export async function listGatewaysAndClasses(db: Database): Promise<{ kind: 'Gateway' | 'GatewayClass'; namespace: string; name: string }[]> {
  return db.prisma.$queryRawUnsafe<{ kind: 'Gateway' | 'GatewayClass'; namespace: string; name: string }[]>(
    `SELECT kind, namespace, name FROM objects WHERE kind IN ('Gateway', 'GatewayClass') AND NOT deleted ORDER BY kind, namespace, name`);
}
