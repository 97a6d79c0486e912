// Reads of the snapshots projection for delivery: one Gateway's stored snapshot, the versions of
// several, its unattached routes, and the Secret data its proxies receive. Snapshots are keyed by
// the Gateway's stream (Gateway/<ns>/<name>); the reconciler writes them (service/reconcile.ts).
import type { SqlRunner } from './database';
import type { SnapshotSecret } from '../../core/snapshot/format';

type Runner = Pick<SqlRunner, '$queryRawUnsafe'>;

/**
 * `tailZ`: the deflated tail of the body (see core/snapshot/format.ts), of version `baseVersion`
 * when that is older, and then `deltas` (their JSON texts, in version order) lead to `version`;
 * `body`: a whole body, from before tails were kept.
 */
export interface StoredSnapshot {
  version: number;
  body: string | null;
  tailZ: Uint8Array | null;
  baseVersion: number | null;
  deltas: string[];
}

/** One statement: the row and the deltas it needs are of the same moment. */
export async function readSnapshot(db: Runner, gatewayStream: string): Promise<StoredSnapshot | null> {
  const rows = await db.$queryRawUnsafe<{ version: bigint; body: string | null; tail_z: Uint8Array | null; base_version: bigint | null; deltas: string[] | null }[]>(
    `SELECT s.version, s.body, s.tail_z, s.base_version,
       CASE WHEN s.base_version IS NOT NULL THEN (SELECT array_agg(d.delta ORDER BY d.version) FROM snapshot_deltas d
         WHERE d.gateway = s.gateway AND d.version > s.base_version AND d.version <= s.version) END AS deltas
     FROM snapshots s WHERE s.gateway = $1`, gatewayStream);
  const r = rows[0];
  return r ? {
    version: Number(r.version), body: r.body, tailZ: r.tail_z ?? null,
    baseVersion: r.base_version === null ? null : Number(r.base_version), deltas: r.deltas ?? [],
  } : null;
}

/** The stored version of each of these Gateways that has a snapshot. */
export async function readSnapshotVersions(db: Runner, gatewayStreams: string[]): Promise<Map<string, number>> {
  const rows = await db.$queryRawUnsafe<{ gateway: string; version: bigint }[]>(
    `SELECT gateway, version FROM snapshots WHERE gateway = ANY($1::text[])`, gatewayStreams);
  return new Map(rows.map((r) => [r.gateway, Number(r.version)]));
}

/** The JSON text of the routes that name the Gateway but are not attached, or null without a snapshot. */
export async function readUnattached(db: Runner, gatewayStream: string): Promise<string | null> {
  const rows = await db.$queryRawUnsafe<{ unattached: string }[]>(`SELECT unattached FROM snapshots WHERE gateway = $1`, gatewayStream);
  return rows[0]?.unattached ?? null;
}

/** The live Secrets among these, with their data, in namespace/name order. */
export async function readSecretsWithData(db: Runner, secretStreams: string[]): Promise<SnapshotSecret[]> {
  const rows = await db.$queryRawUnsafe<{ namespace: string; name: string; type: string | null; data: Record<string, string> | null }[]>(
    `SELECT o.namespace, o.name, o.object->>'type' AS type, d.data FROM objects o LEFT JOIN secret_data d ON d.stream = o.stream
     WHERE o.stream = ANY($1::text[]) AND NOT o.deleted ORDER BY o.namespace, o.name`,
    secretStreams);
  return rows.map((r) => ({ namespace: r.namespace, name: r.name, ...(r.type ? { type: r.type } : {}), data: r.data ?? {} }));
}
