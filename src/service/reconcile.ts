// One recompute: load a Gateway's world, translate it in the pure core, and write statuses, the
// compiled snapshot and the dependency list in one transaction, unless a recompute from a newer
// log position has already written.
import { createHash } from 'node:crypto';
import type { Database, SqlRunner } from '../adapters/store/database';
import { loadGatewayWorld, gatewayStream } from '../adapters/store/world-loader';
import { translateGateway, gatewayClassStatus } from '../core/translate';
import { compileGateway, compileUnattached } from '../core/compile';
import { canonicalJson } from '../core/objects/canonical';
import { TX_SHIFT } from '../adapters/store/eventlog';
import { inReadingOrder } from '../core/objects/order';
import type { K8sObject } from '../core/model/objects';

export interface ReconcileOptions {
  controllerName: string;
  clock?: () => Date;
}

export interface GatewayOutcome {
  key: string;
  written: boolean;
  snapshotVersion?: number;
  snapshotChanged: boolean;
  sourcePosition: number;
  /** what this recompute read or looked for (see missedChanges) */
  deps?: string[];
}

/**
 * The dispatcher learns what a Gateway depends on from that Gateway's last recompute. A change to a
 * new dependency that lands while the recompute runs may be dispatched before the dependency is
 * recorded, and so reach nobody. After writing, a recompute therefore looks for changes to its
 * dependencies after the position it read from; if there are any it must run again.
 */
export async function missedChanges(db: Database, sourcePosition: number, deps: string[]): Promise<boolean> {
  if (deps.length === 0) return false;
  const rows = await db.sql.$queryRawUnsafe<unknown[]>(
    `SELECT 1 FROM events e WHERE e.position > $1 AND (
       (e.kind IN ('Service', 'Secret', 'ConfigMap') AND e.kind || '/' || e.namespace || '/' || e.name = ANY($2::text[]))
       OR (e.kind = 'ReferenceGrant' AND 'ReferenceGrant/' || e.namespace = ANY($2::text[]))
       OR (e.kind = 'Namespace' AND 'Namespace/*' = ANY($2::text[]))
       OR (e.kind = 'EndpointSlice' AND 'EndpointSlice/' || e.namespace || '/' || coalesce(e.object->'metadata'->'labels'->>'kubernetes.io/service-name', '') = ANY($2::text[]))
     ) LIMIT 1`,
    sourcePosition, deps);
  return rows.length > 0;
}

type Tx = SqlRunner;

export function gatewayOwner(ns: string, name: string): string {
  return gatewayStream(ns, name);
}

export class Reconciler {
  private readonly clock: () => Date;
  constructor(private readonly db: Database, private readonly opts: ReconcileOptions) {
    this.clock = opts.clock ?? (() => new Date());
  }

  async recomputeGateway(ns: string, name: string): Promise<GatewayOutcome> {
    const started = performance.now();
    // `owner` is the Gateway's stream (its snapshot key); everything else this controller writes is
    // keyed by its name too, so controllers sharing one store never touch each other's output.
    const owner = gatewayOwner(ns, name);
    const scope = this.opts.controllerName;
    const routeOwner = `${scope}|${owner}`;
    const gateKey = routeOwner;
    const loaded = await loadGatewayWorld(this.db, ns, name, routeOwner, scope);
    const now = this.clock().toISOString();
    const translation = loaded.gateway
      ? translateGateway(loaded.world, { namespace: ns, name }, { controllerName: this.opts.controllerName, now }, {
          gatewayStatus: loaded.previousGatewayStatus as never,
          routeParents: [...loaded.previousParts].map(([stream, status]) => {
            const [kind, rns, ...rest] = stream.split('/');
            return { kind, namespace: rns, name: rest.join('/'), parents: (status.parents ?? []) as never[] };
          }) as never,
        })
      : undefined;

    const table = translation ? compileGateway(translation.attachment, loaded.world, { includeUnattached: false }) : undefined;
    const unattached = translation ? JSON.stringify(compileUnattached(translation.attachment.rejected ?? [])) : '[]';
    // The certificates travel beside the table (only to its proxies), so a rotated Secret must move
    // the version too: the hash covers the table and the digest of each referenced Secret's data.
    const secretDigests = loaded.world.secrets
      .map((sec) => ({ namespace: sec.metadata.namespace, name: sec.metadata.name, digest: createHash('sha256').update(canonicalJson(sec.data ?? {})).digest('hex') }))
      .sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
    // compile's output is byte-for-byte deterministic, so its JSON is serialized once, natively, and
    // serves both the hash and the stored body (a sorted-key copy of a large table cost more than
    // the compile itself)
    const tableJson = table ? JSON.stringify(table) : undefined;
    const hash = tableJson !== undefined
      ? createHash('sha256').update('{"table":').update(tableJson).update(`,"secrets":${canonicalJson(secretDigests)}}`).digest('hex')
      : undefined;

    // on the pool's own connection: Prisma's interactive transaction costs engine work per statement
    return this.db.transaction(async (tx) => {
      // The gate: one row per Gateway, locked for this transaction, moved only forwards.
      const gate = await tx.$queryRawUnsafe<{ gateway: string }[]>(
        `INSERT INTO recomputes (gateway, source_position, at) VALUES ($1, $2, $3::timestamptz)
         ON CONFLICT (gateway) DO UPDATE SET source_position = excluded.source_position, at = excluded.at
           WHERE recomputes.source_position < excluded.source_position
         RETURNING gateway`, gateKey, loaded.sourcePosition, now);
      if (gate.length === 0) return { key: owner, written: false, snapshotChanged: false, sourcePosition: loaded.sourcePosition };

      const parts: { stream: string; owner: string; status: unknown }[] = [];
      if (translation) {
        parts.push({ stream: owner, owner: scope, status: translation.gatewayStatus });
        for (const r of translation.routeParents) {
          parts.push({ stream: `${r.kind}/${r.namespace}/${r.name}`, owner: routeOwner, status: { parents: r.parents } });
        }
      }
      // One statement, after the gate: the status parts and the dependency list, of which only rows
      // that change are written (a change to one route leaves its Gateway's other parts as they
      // were), and what is known of the snapshot. It runs after the gate's lock is held, so it reads
      // what the recompute before this one committed.
      const [known] = await tx.$queryRawUnsafe<{ issued_hash: string | null; issued_version: bigint | null; stored_hash: string | null }[]>(
        `WITH gone AS (DELETE FROM status_parts WHERE owner = $3 AND NOT (stream = ANY($4::text[]))),
         parts AS (
           INSERT INTO status_parts (stream, owner, position, status)
           SELECT stream, owner, $2, status FROM jsonb_to_recordset($1::jsonb) AS x(stream text, owner text, status jsonb)
           ON CONFLICT (stream, owner) DO UPDATE SET position = excluded.position, status = excluded.status
             WHERE status_parts.status IS DISTINCT FROM excluded.status),
         gone_deps AS (DELETE FROM gateway_deps WHERE gateway = $6 AND NOT (dep = ANY($5::text[]))),
         deps AS (INSERT INTO gateway_deps (dep, gateway) SELECT unnest($5::text[]), $6 ON CONFLICT DO NOTHING)
         SELECT v.hash AS issued_hash, v.version AS issued_version, (SELECT hash FROM snapshots WHERE gateway = $7) AS stored_hash
         FROM (SELECT 1) AS one LEFT JOIN snapshot_versions v ON v.gateway = $7`,
        JSON.stringify(parts), loaded.sourcePosition, routeOwner, parts.filter((p) => p.owner === routeOwner).map((p) => p.stream),
        loaded.deps, gateKey, owner);
      if (!translation) await tx.$executeRawUnsafe(`DELETE FROM status_parts WHERE stream = $1 AND owner = $2`, owner, scope);

      let snapshotVersion: number | undefined;
      let snapshotChanged = false;
      if (tableJson !== undefined && hash) {
        // snapshot_versions outlives rebuilds: the same content keeps its version, new content gets the next one
        const reuse = known.issued_version !== null && known.issued_hash === hash;
        if (known.stored_hash !== hash) {
          // the version and the snapshot in one statement; the body is
          // JSON.stringify({ gateway, version, hash, table }), reusing the table's JSON
          snapshotChanged = true;
          const head = `${JSON.stringify({ gateway: { namespace: ns, name } }).slice(0, -1)},"version":`;
          const tail = `,"hash":${JSON.stringify(hash)},"table":${tableJson}}`;
          const [v] = await tx.$queryRawUnsafe<{ version: bigint }[]>(
            `WITH v AS (${reuse
              ? 'SELECT $9::bigint AS version'
              : `INSERT INTO snapshot_versions (gateway, version, hash) VALUES ($1, 1, $2)
                 ON CONFLICT (gateway) DO UPDATE SET version = snapshot_versions.version + 1, hash = excluded.hash RETURNING version`})
             INSERT INTO snapshots (gateway, version, hash, body, source_position, updated_at, unattached, controller)
             SELECT $1::text, v.version, $2::text, $3::text || v.version::text || $4::text, $5::bigint, $6::timestamptz, $7::text, $8::text FROM v
             ON CONFLICT (gateway) DO UPDATE SET version = excluded.version, hash = excluded.hash, body = excluded.body,
               source_position = excluded.source_position, updated_at = excluded.updated_at, unattached = excluded.unattached,
               controller = excluded.controller
             RETURNING version`,
            owner, hash, head, tail, loaded.sourcePosition, now, unattached, scope, ...(reuse ? [known.issued_version] : []));
          snapshotVersion = Number(v.version);
        } else if (reuse) {
          snapshotVersion = Number(known.issued_version);
        } else {
          const [v] = await tx.$queryRawUnsafe<{ version: bigint }[]>(
            `INSERT INTO snapshot_versions (gateway, version, hash) VALUES ($1, 1, $2)
             ON CONFLICT (gateway) DO UPDATE SET version = snapshot_versions.version + 1, hash = excluded.hash RETURNING version`, owner, hash);
          snapshotVersion = Number(v.version);
        }
        if (!snapshotChanged) {
          await tx.$executeRawUnsafe(`UPDATE snapshots SET unattached = $2 WHERE gateway = $1 AND unattached <> $2`, owner, unattached);
        }
      } else {
        const del = await tx.$executeRawUnsafe(`DELETE FROM snapshots WHERE gateway = $1 AND controller = $2`, owner, scope);
        snapshotChanged = Number(del) > 0;
      }
      await tx.$executeRawUnsafe(`UPDATE recomputes SET duration_ms = $2 WHERE gateway = $1`, gateKey, performance.now() - started);
      return { key: owner, written: true, snapshotVersion, snapshotChanged, sourcePosition: loaded.sourcePosition, deps: loaded.deps };
    });
  }

  async recomputeGatewayClass(name: string): Promise<boolean> {
    const stream = `GatewayClass//${name}`;
    const scope = this.opts.controllerName;
    const now = this.clock().toISOString();
    return this.db.transaction(async (tx: Tx) => {
      const [{ xmin }] = await tx.$queryRawUnsafe<{ xmin: bigint }[]>(`SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin`);
      const rowsFound = await tx.$queryRawUnsafe<any[]>(
        `SELECT o.object, (SELECT sp.status FROM status_parts sp WHERE sp.stream = o.stream AND sp.owner = $2) AS status
         FROM objects o WHERE o.stream = $1 AND NOT o.deleted FOR UPDATE`, stream, scope);
      await tx.$executeRawUnsafe(
        `INSERT INTO recomputes (gateway, source_position, at) VALUES ($1, $2, $3::timestamptz)
         ON CONFLICT (gateway) DO UPDATE SET source_position = GREATEST(recomputes.source_position, excluded.source_position), at = excluded.at`,
        `${scope}|${stream}`, Number(xmin) * TX_SHIFT - 1, now);
      const gc = rowsFound[0] ? (inReadingOrder(rowsFound[0].object) as K8sObject) : undefined;
      const status = gc ? gatewayClassStatus(gc as never, { controllerName: this.opts.controllerName, now }, rowsFound[0].status ?? undefined) : undefined;
      if (!status) {
        await tx.$executeRawUnsafe(`DELETE FROM status_parts WHERE stream = $1 AND owner = $2`, stream, scope);
        return false;
      }
      await tx.$executeRawUnsafe(
        `INSERT INTO status_parts (stream, owner, position, status) VALUES ($1, $4, $2, $3::jsonb)
         ON CONFLICT (stream, owner) DO UPDATE SET position = excluded.position, status = excluded.status
           WHERE status_parts.position <= excluded.position`,
        stream, Number(xmin) * TX_SHIFT - 1, JSON.stringify(status), scope);
      return true;
    });
  }
}
