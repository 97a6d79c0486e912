// One recompute: load a Gateway's world, translate it in the pure core, and write statuses, the
// compiled snapshot and the dependency list in one transaction, unless a recompute from a newer
// log position has already written.
import { createHash } from 'node:crypto';
import type { Database, SqlRunner } from '../adapters/store/database';
import { loadGatewayWorld, gatewayStream } from '../adapters/store/world-loader';
import { ObjectCache } from '../adapters/store/object-cache';
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

/**
 * What one Gateway's last recompute wrote, as this process knows it: `gate` is the source position
 * it wrote at. It is the base for lastTransitionTime and for writing only the parts that changed,
 * and is trusted only while the Gateway's gate row still shows that position (another process, or
 * a rebuild, may have written since).
 */
interface Written {
  gate: number | null;
  gatewayStatus?: Record<string, unknown>;
  parts: Map<string, { status: { parents?: unknown[] }; json: string }>;
  deps: string;
}

const MAX_WRITTEN = 1024;

class StaleBase extends Error {}

export class Reconciler {
  private readonly clock: () => Date;
  readonly cache: ObjectCache;
  private readonly written = new Map<string, Written>();

  constructor(private readonly db: Database, private readonly opts: ReconcileOptions) {
    this.clock = opts.clock ?? (() => new Date());
    this.cache = new ObjectCache(db);
  }

  /** What this controller last wrote for a Gateway, from memory or else from the store (one statement). */
  private async writtenFor(gateKey: string, owner: string): Promise<Written> {
    const hit = this.written.get(gateKey);
    if (hit) {
      this.written.delete(gateKey); // most recently used last
      this.written.set(gateKey, hit);
      return hit;
    }
    const [row] = await this.db.sql.$queryRawUnsafe<{ gate: number | null; gw: Record<string, unknown> | null; parts: [string, { parents?: unknown[] }][] | null; deps: string[] | null }[]>(
      `SELECT (SELECT source_position FROM recomputes WHERE gateway = $1) AS gate,
         (SELECT status FROM status_parts WHERE stream = $2 AND owner = $3) AS gw,
         (SELECT json_agg(json_build_array(stream, status)) FROM status_parts WHERE owner = $1) AS parts,
         (SELECT array_agg(dep ORDER BY dep) FROM gateway_deps WHERE gateway = $1) AS deps`,
      gateKey, owner, this.opts.controllerName);
    return {
      gate: row.gate === null ? null : Number(row.gate),
      gatewayStatus: row.gw ?? undefined,
      parts: new Map((row.parts ?? []).map(([stream, status]) => [stream, { status, json: JSON.stringify(status) }])),
      deps: JSON.stringify(row.deps ?? []),
    };
  }

  private remember(gateKey: string, w: Written | undefined): void {
    this.written.delete(gateKey);
    if (!w) return;
    this.written.set(gateKey, w);
    for (const k of this.written.keys()) {
      if (this.written.size <= MAX_WRITTEN) break;
      this.written.delete(k);
    }
  }

  async recomputeGateway(ns: string, name: string): Promise<GatewayOutcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.recomputeOnce(ns, name);
      } catch (e) {
        if (!(e instanceof StaleBase) || attempt >= 3) throw e;
      }
    }
  }

  private async recomputeOnce(ns: string, name: string): Promise<GatewayOutcome> {
    const started = performance.now();
    // `owner` is the Gateway's stream (its snapshot key); everything else this controller writes is
    // keyed by its name too, so controllers sharing one store never touch each other's output.
    const owner = gatewayOwner(ns, name);
    const scope = this.opts.controllerName;
    const routeOwner = `${scope}|${owner}`;
    const gateKey = routeOwner;
    await this.cache.sync();
    const before = await this.writtenFor(gateKey, owner);
    const loaded = await loadGatewayWorld(this.db, this.cache, ns, name, before.gatewayStatus);
    const now = this.clock().toISOString();
    const translation = loaded.gateway
      ? translateGateway(loaded.world, { namespace: ns, name }, { controllerName: this.opts.controllerName, now }, {
          gatewayStatus: before.gatewayStatus as never,
          routeParents: [...before.parts].map(([stream, part]) => {
            const [kind, rns, ...rest] = stream.split('/');
            return { kind, namespace: rns, name: rest.join('/'), parents: (part.status.parents ?? []) as never[] };
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

    // What changed against what was last written: only that is sent.
    const after: Written = { gate: loaded.sourcePosition, gatewayStatus: translation?.gatewayStatus as never, parts: new Map(), deps: JSON.stringify([...loaded.deps].sort()) };
    const changed: { stream: string; owner: string; status: unknown }[] = [];
    if (translation) {
      const gwJson = JSON.stringify(translation.gatewayStatus);
      if (JSON.stringify(before.gatewayStatus ?? null) !== gwJson) changed.push({ stream: owner, owner: scope, status: translation.gatewayStatus });
      for (const r of translation.routeParents) {
        const stream = `${r.kind}/${r.namespace}/${r.name}`;
        const status = { parents: r.parents };
        const json = JSON.stringify(status);
        after.parts.set(stream, { status, json });
        if (before.parts.get(stream)?.json !== json) changed.push({ stream, owner: routeOwner, status });
      }
    }
    const gone = [...before.parts.keys()].filter((s) => !after.parts.has(s));
    const depsChanged = before.deps !== after.deps;

    // on the pool's own connection: Prisma's interactive transaction costs engine work per statement
    let outcome: GatewayOutcome;
    try {
      outcome = await this.db.transaction(async (tx) => {
        // The gate: one row per Gateway, locked for this transaction, moved only forwards. It also
        // tells whether what this process last wrote is still what the store holds, and what is
        // known of the snapshot.
        const [gate] = await tx.$queryRawUnsafe<{ old: number | null; ok: boolean; issued_hash: string | null; issued_version: number | null; stored_hash: string | null }[]>(
          `WITH old AS (SELECT source_position FROM recomputes WHERE gateway = $1 FOR UPDATE),
           up AS (
             INSERT INTO recomputes (gateway, source_position, at) VALUES ($1, $2, $3::timestamptz)
             ON CONFLICT (gateway) DO UPDATE SET source_position = excluded.source_position, at = excluded.at
               WHERE recomputes.source_position < excluded.source_position
             RETURNING 1)
           SELECT (SELECT source_position FROM old) AS old, EXISTS (SELECT 1 FROM up) AS ok,
             (SELECT hash FROM snapshot_versions WHERE gateway = $4) AS issued_hash,
             (SELECT version FROM snapshot_versions WHERE gateway = $4) AS issued_version,
             (SELECT hash FROM snapshots WHERE gateway = $4) AS stored_hash`,
          gateKey, loaded.sourcePosition, now, owner);
        if (!gate.ok) return { key: owner, written: false, snapshotChanged: false, sourcePosition: loaded.sourcePosition };
        const old = gate.old === null ? null : Number(gate.old);
        if (old !== before.gate) throw new StaleBase();

        // One statement: the parts that changed, the dependency list if it changed, the snapshot if
        // its content changed, and the recompute's duration.
        const params: unknown[] = [gateKey];
        const p = (v: unknown) => { params.push(v); return `$${params.length}`; };
        const ctes: string[] = [];
        if (changed.length) {
          ctes.push(`parts AS (
            INSERT INTO status_parts (stream, owner, position, status)
            SELECT stream, owner, ${p(loaded.sourcePosition)}::bigint, status FROM jsonb_to_recordset(${p(JSON.stringify(changed))}::jsonb) AS x(stream text, owner text, status jsonb)
            ON CONFLICT (stream, owner) DO UPDATE SET position = excluded.position, status = excluded.status RETURNING 1)`);
        }
        if (gone.length) ctes.push(`gone AS (DELETE FROM status_parts WHERE owner = $1 AND stream = ANY(${p(gone)}::text[]) RETURNING 1)`);
        if (!translation) ctes.push(`gone_self AS (DELETE FROM status_parts WHERE stream = ${p(owner)} AND owner = ${p(scope)} RETURNING 1)`);
        if (depsChanged) {
          const deps = p(loaded.deps);
          ctes.push(`gone_deps AS (DELETE FROM gateway_deps WHERE gateway = $1 AND NOT (dep = ANY(${deps}::text[])) RETURNING 1)`,
            `deps AS (INSERT INTO gateway_deps (dep, gateway) SELECT unnest(${deps}::text[]), $1 ON CONFLICT DO NOTHING RETURNING 1)`);
        }

        let snapshotVersion: number | undefined;
        let snapshotChanged = false;
        let versionSql = '';
        if (tableJson !== undefined && hash) {
          // snapshot_versions outlives rebuilds: the same content keeps its version, new content gets the next one
          const reuse = gate.issued_version !== null && gate.issued_hash === hash;
          const nextVersion = () => `INSERT INTO snapshot_versions (gateway, version, hash) VALUES (${p(owner)}, 1, ${p(hash)})
                 ON CONFLICT (gateway) DO UPDATE SET version = snapshot_versions.version + 1, hash = excluded.hash RETURNING version`;
          if (gate.stored_hash !== hash) {
            // the body is JSON.stringify({ gateway, version, hash, table }), reusing the table's JSON
            snapshotChanged = true;
            const head = `${JSON.stringify({ gateway: { namespace: ns, name } }).slice(0, -1)},"version":`;
            const tail = `,"hash":${JSON.stringify(hash)},"table":${tableJson}}`;
            ctes.push(`v AS (${reuse ? `SELECT ${p(gate.issued_version)}::bigint AS version` : nextVersion()})`,
              `snap AS (
                INSERT INTO snapshots (gateway, version, hash, body, source_position, updated_at, unattached, controller)
                SELECT ${p(owner)}::text, v.version, ${p(hash)}::text, ${p(head)}::text || v.version::text || ${p(tail)}::text,
                  ${p(loaded.sourcePosition)}::bigint, ${p(now)}::timestamptz, ${p(unattached)}::text, ${p(scope)}::text FROM v
                ON CONFLICT (gateway) DO UPDATE SET version = excluded.version, hash = excluded.hash, body = excluded.body,
                  source_position = excluded.source_position, updated_at = excluded.updated_at, unattached = excluded.unattached,
                  controller = excluded.controller
                RETURNING version)`);
            versionSql = '(SELECT version FROM snap)';
          } else if (reuse) {
            snapshotVersion = Number(gate.issued_version);
          } else {
            ctes.push(`v AS (${nextVersion()})`);
            versionSql = '(SELECT version FROM v)';
          }
          if (!snapshotChanged) {
            ctes.push(`unatt AS (UPDATE snapshots SET unattached = ${p(unattached)} WHERE gateway = ${p(owner)} AND unattached <> ${p(unattached)} RETURNING 1)`);
          }
        } else {
          ctes.push(`del AS (DELETE FROM snapshots WHERE gateway = ${p(owner)} AND controller = ${p(scope)} RETURNING 1)`);
          versionSql = '-(SELECT count(*) FROM del)';
        }
        ctes.push(`dur AS (UPDATE recomputes SET duration_ms = ${p(performance.now() - started)} WHERE gateway = $1 RETURNING 1)`);
        // every data-modifying CTE runs whether or not the final SELECT reads it
        const [row] = await tx.$queryRawUnsafe<{ version: number | null }[]>(
          `WITH ${ctes.join(',\n')} SELECT ${versionSql || 'NULL'} AS version`, ...params);
        if (tableJson !== undefined && hash) {
          if (versionSql) snapshotVersion = Number(row.version);
        } else {
          snapshotChanged = Number(row.version) < 0;
        }
        return { key: owner, written: true, snapshotVersion, snapshotChanged, sourcePosition: loaded.sourcePosition, deps: loaded.deps };
      });
    } catch (e) {
      this.remember(gateKey, undefined);
      throw e;
    }
    // a recompute from a newer position wrote instead: what this process knew is no longer current
    this.remember(gateKey, outcome.written ? after : undefined);
    return outcome;
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
