// One recompute: load a Gateway's world, translate it in the pure core, and write statuses, the
// compiled snapshot and the dependency list in one transaction, unless a recompute from a newer
// log position has already written.
import { createHash } from 'node:crypto';
import type { Database, SqlRunner } from '../adapters/store/database';
import { loadGatewayWorld, gatewayStream } from '../adapters/store/world-loader';
import { ObjectCache } from '../adapters/store/object-cache';
import { keepRecent } from '../core/model/recent';
import { deflateTail, snapshotHead } from '../adapters/delivery/snapshots';
import { translateGateway, gatewayClassStatus } from '../core/translate';
import { compileGateway, compileUnattached, tableJson } from '../core/compile';
import { canonicalJson, deepEqual } from '../core/objects/canonical';
import { HORIZON, TX_SHIFT } from '../adapters/store/eventlog';
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
  /** the new snapshot's body, when it changed */
  body?: string;
  /** the write found changes to its dependencies after its position (and recorded them as wanted) */
  missed?: boolean;
}

/** Events after a position that touch any of a Gateway's dependencies ($1 position, $2 deps). */
const DEP_EVENTS = `FROM events e WHERE e.position > $1 AND (
       (e.kind IN ('Service', 'Secret', 'ConfigMap') AND e.kind || '/' || e.namespace || '/' || e.name = ANY($2::text[]))
       OR (e.kind = 'ReferenceGrant' AND 'ReferenceGrant/' || e.namespace = ANY($2::text[]))
       OR (e.kind = 'Namespace' AND 'Namespace/*' = ANY($2::text[]))
       OR (e.kind = 'EndpointSlice' AND 'EndpointSlice/' || e.namespace || '/' || coalesce(e.object->'metadata'->'labels'->>'kubernetes.io/service-name', '') = ANY($2::text[]))
     )`;

/**
 * The dispatcher learns what a Gateway depends on from that Gateway's last recompute. A change to a
 * new dependency that lands while the recompute runs may be dispatched before the dependency is
 * recorded, and so reach nobody. After writing, a recompute therefore looks for changes to its
 * dependencies after the position it read from; if there are any it must run again. With `wantKey`
 * that is also recorded as wanted, so that nobody takes the Gateway for caught up in between.
 */
export async function missedChanges(db: Database, sourcePosition: number, deps: string[], wantKey?: string): Promise<boolean> {
  if (deps.length === 0) return false;
  const rows = wantKey === undefined
    ? await db.sql.$queryRawUnsafe<unknown[]>(`SELECT 1 ${DEP_EVENTS} LIMIT 1`, sourcePosition, deps)
    : await db.sql.$queryRawUnsafe<unknown[]>(
      `INSERT INTO reconcile_wants (key, position) SELECT $3, max(e.position) ${DEP_EVENTS} HAVING max(e.position) IS NOT NULL
       ON CONFLICT (key) DO UPDATE SET position = GREATEST(reconcile_wants.position, excluded.position) RETURNING 1`,
      sourcePosition, deps, wantKey);
  return rows.length > 0;
}

type Tx = SqlRunner;

export function gatewayOwner(ns: string, name: string): string {
  return gatewayStream(ns, name);
}

/**
 * What one Gateway's last recompute wrote, as this process knows it: `gate` is the source position
 * it wrote at. It is the base for lastTransitionTime and for sending only what changed, and is
 * trusted only while the Gateway's gate row still shows that position (another process, or a
 * rebuild, may have written since).
 */
interface Written {
  gate: number | null;
  gatewayStatus?: Record<string, unknown>;
  parts: Map<string, { parents?: unknown[] }>;
  deps: string;
  /** the snapshot's hash and unattached list as stored; undefined when not known */
  hash?: string | null;
  unattached?: string;
}

const MAX_WRITTEN = 128;

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
    if (hit) return keepRecent(this.written, gateKey, hit, MAX_WRITTEN);
    const [row] = await this.db.prepared<{ gate: number | null; gw: Record<string, unknown> | null; parts: [string, { parents?: unknown[] }][] | null; deps: string[] | null; hash: string | null; unattached: string | null }[]>(
      'switchyard_written_for',
      `SELECT (SELECT source_position FROM recomputes WHERE gateway = $1) AS gate,
         (SELECT status FROM status_parts WHERE stream = $2 AND owner = $3) AS gw,
         (SELECT json_agg(json_build_array(stream, status)) FROM status_parts WHERE owner = $1) AS parts,
         (SELECT array_agg(dep ORDER BY dep) FROM gateway_deps WHERE gateway = $1) AS deps,
         (SELECT hash FROM snapshots WHERE gateway = $2) AS hash,
         (SELECT unattached FROM snapshots WHERE gateway = $2) AS unattached`,
      gateKey, owner, this.opts.controllerName);
    return {
      gate: row.gate === null ? null : Number(row.gate),
      gatewayStatus: row.gw ?? undefined,
      parts: new Map(row.parts ?? []),
      deps: JSON.stringify(row.deps ?? []),
      hash: row.hash,
      unattached: row.unattached ?? undefined,
    };
  }

  private remember(gateKey: string, w: Written | undefined): void {
    if (w) keepRecent(this.written, gateKey, w, MAX_WRITTEN);
    else this.written.delete(gateKey);
  }

  /**
   * `atLeast`: the log position the request for this recompute was made at. When the cache has
   * already reached it (the dispatcher feeds it what it reads) no round trip is needed to catch up;
   * without it the cache catches up with the store first.
   */
  async recomputeGateway(ns: string, name: string, atLeast?: number): Promise<GatewayOutcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.recomputeOnce(ns, name, attempt === 0 ? atLeast : undefined);
      } catch (e) {
        if (!(e instanceof StaleBase) || attempt >= 3) throw e;
      }
    }
  }

  private async recomputeOnce(ns: string, name: string, atLeast: number | undefined): Promise<GatewayOutcome> {
    const started = performance.now();
    // `owner` is the Gateway's stream (its snapshot key); everything else this controller writes is
    // keyed by its name too, so controllers sharing one store never touch each other's output.
    const owner = gatewayOwner(ns, name);
    const scope = this.opts.controllerName;
    const routeOwner = `${scope}|${owner}`;
    const gateKey = routeOwner;
    if (atLeast === undefined || this.cache.position < atLeast) await this.cache.sync();
    const before = await this.writtenFor(gateKey, owner);
    const loaded = await loadGatewayWorld(this.db, this.cache, ns, name, before.gatewayStatus);
    const now = this.clock().toISOString();
    const translation = loaded.gateway
      ? translateGateway(loaded.world, { namespace: ns, name }, { controllerName: this.opts.controllerName, now }, {
          gatewayStatus: before.gatewayStatus as never,
          routeParents: [...before.parts].map(([stream, part]) => {
            const [kind, rns, ...rest] = stream.split('/');
            return { kind, namespace: rns, name: rest.join('/'), parents: (part.parents ?? []) as never[] };
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
    const tableText = table ? tableJson(table) : undefined;
    const hash = tableText !== undefined
      ? createHash('sha256').update('{"table":').update(tableText).update(`,"secrets":${canonicalJson(secretDigests)}}`).digest('hex')
      : undefined;

    // What changed against what was last written: only that is sent.
    const after: Written = {
      gate: loaded.sourcePosition, gatewayStatus: translation?.gatewayStatus as never, parts: new Map(),
      deps: JSON.stringify([...loaded.deps].sort()), hash: hash ?? null, unattached: hash ? unattached : undefined,
    };
    const changed: { stream: string; owner: string; status: unknown }[] = [];
    if (translation) {
      if (!deepEqual(before.gatewayStatus ?? null, translation.gatewayStatus)) changed.push({ stream: owner, owner: scope, status: translation.gatewayStatus });
      for (const r of translation.routeParents) {
        const stream = `${r.kind}/${r.namespace}/${r.name}`;
        const status = { parents: r.parents };
        after.parts.set(stream, status);
        const was = before.parts.get(stream);
        if (!was || !deepEqual(was, status)) changed.push({ stream, owner: routeOwner, status });
      }
    }
    const gone = [...before.parts.keys()].filter((s) => !after.parts.has(s));

    // One statement, so one round trip and one commit. The gate row (one per Gateway, moved only
    // forwards) is locked first; everything else is written only if it moved, and only if it still
    // showed what this process last wrote: otherwise `before` is not what the store holds.
    const params: unknown[] = [gateKey, loaded.sourcePosition, now, before.gate, performance.now() - started];
    const p = (v: unknown) => { params.push(v); return `$${params.length}`; };
    const ctes: string[] = [
      `old AS (SELECT source_position FROM recomputes WHERE gateway = $1 FOR UPDATE)`,
      `up AS (
        INSERT INTO recomputes (gateway, source_position, at, duration_ms)
        SELECT $1, $2::bigint, $3::timestamptz, $5::float8 WHERE (SELECT source_position FROM old) IS NOT DISTINCT FROM $4::bigint
        ON CONFLICT (gateway) DO UPDATE SET source_position = excluded.source_position, at = excluded.at, duration_ms = excluded.duration_ms
          WHERE recomputes.source_position < excluded.source_position
        RETURNING 1)`,
    ];
    const go = 'EXISTS (SELECT 1 FROM up)';
    if (changed.length) {
      ctes.push(`parts AS (
        INSERT INTO status_parts (stream, owner, position, status)
        SELECT stream, owner, $2::bigint, status FROM jsonb_to_recordset(${p(JSON.stringify(changed))}::jsonb) AS x(stream text, owner text, status jsonb) WHERE ${go}
        ON CONFLICT (stream, owner) DO UPDATE SET position = excluded.position, status = excluded.status RETURNING 1)`);
    }
    if (before.gate === null) {
      // a first write: whatever a concurrent first write left that this one does not hold goes
      ctes.push(`gone AS (DELETE FROM status_parts WHERE owner = $1 AND NOT (stream = ANY(${p([...after.parts.keys()])}::text[])) AND ${go} RETURNING 1)`);
    } else if (gone.length) {
      ctes.push(`gone AS (DELETE FROM status_parts WHERE owner = $1 AND stream = ANY(${p(gone)}::text[]) AND ${go} RETURNING 1)`);
    }
    if (!translation && before.gatewayStatus !== undefined) {
      ctes.push(`gone_self AS (DELETE FROM status_parts WHERE stream = ${p(owner)} AND owner = ${p(scope)} AND ${go} RETURNING 1)`);
    }
    if (before.deps !== after.deps) {
      const deps = p(loaded.deps);
      ctes.push(`gone_deps AS (DELETE FROM gateway_deps WHERE gateway = $1 AND NOT (dep = ANY(${deps}::text[])) AND ${go} RETURNING 1)`,
        `deps AS (INSERT INTO gateway_deps (dep, gateway) SELECT unnest(${deps}::text[]), $1 WHERE ${go} ON CONFLICT DO NOTHING RETURNING 1)`);
    }
    if (loaded.deps.length) {
      // changes to a dependency after the position read, which the dispatcher may have sent nowhere
      // (see missedChanges): wanted again in the same statement, so that no one sees this Gateway
      // caught up before the recompute that follows
      const deps = p(loaded.deps);
      ctes.push(`missed AS (
        INSERT INTO reconcile_wants (key, position)
        SELECT $1, max(e.position) ${DEP_EVENTS.replace('$1', '$2::bigint').replaceAll('$2::text[]', `${deps}::text[]`)} AND ${go}
        HAVING max(e.position) IS NOT NULL
        ON CONFLICT (key) DO UPDATE SET position = GREATEST(reconcile_wants.position, excluded.position) RETURNING 1)`);
    }
    let version = 'NULL::bigint';
    let body: ((v: number) => string) | undefined;
    let snapshotWritten = 'false';
    if (tableText !== undefined && hash) {
      // snapshot_versions outlives rebuilds: the same content keeps its version, new content gets the next one
      const o = p(owner);
      const h = p(hash);
      ctes.push(`sv AS (
        INSERT INTO snapshot_versions (gateway, version, hash) SELECT ${o}, 1, ${h} WHERE ${go}
        ON CONFLICT (gateway) DO UPDATE SET version = snapshot_versions.version + 1, hash = excluded.hash
          WHERE snapshot_versions.hash IS DISTINCT FROM excluded.hash
        RETURNING version)`,
      `ver AS (SELECT coalesce((SELECT version FROM sv), (SELECT version FROM snapshot_versions WHERE gateway = ${o})) AS version)`);
      version = '(SELECT version FROM ver)';
      if (before.hash !== hash) {
        // the body is JSON.stringify({ gateway, version, hash, table }), reusing the table's JSON; the
        // store keeps what follows the version, deflated (see snapshotHead)
        const head = snapshotHead(ns, name);
        const tail = `,"hash":${JSON.stringify(hash)},"table":${tableText}}`;
        body = (v) => `${head}${v}${tail}`;
        ctes.push(`snap AS (
          INSERT INTO snapshots (gateway, version, hash, body, tail_z, source_position, updated_at, unattached, controller)
          SELECT ${o}, ver.version, ${h}, NULL, ${p(deflateTail(tail))}::bytea,
            $2::bigint, $3::timestamptz, ${p(unattached)}::text, ${p(scope)}::text FROM ver WHERE ${go}
          ON CONFLICT (gateway) DO UPDATE SET version = excluded.version, hash = excluded.hash, body = NULL, tail_z = excluded.tail_z,
            source_position = excluded.source_position, updated_at = excluded.updated_at, unattached = excluded.unattached,
            controller = excluded.controller
            WHERE snapshots.hash IS DISTINCT FROM excluded.hash OR snapshots.unattached IS DISTINCT FROM excluded.unattached
          RETURNING 1)`);
        // the plain subselect reads the row as it was before this statement
        snapshotWritten = `(SELECT count(*) FROM snap) > 0 AND (SELECT hash FROM snapshots WHERE gateway = ${o}) IS DISTINCT FROM ${h}`;
      } else if (before.unattached !== unattached) {
        ctes.push(`unatt AS (UPDATE snapshots SET unattached = ${p(unattached)} WHERE gateway = ${o} AND ${go} RETURNING 1)`);
      }
    } else if (before.hash !== null) {
      ctes.push(`del AS (DELETE FROM snapshots WHERE gateway = ${p(owner)} AND controller = ${p(scope)} AND ${go} RETURNING 1)`);
      snapshotWritten = '(SELECT count(*) FROM del) > 0';
    }

    let row: { old: number | null; ok: boolean; version: number | null; snapshot_written: boolean; missed: boolean };
    try {
      // every data-modifying CTE runs whether or not the final SELECT reads it
      const text = `WITH ${ctes.join(',\n')}
         SELECT (SELECT source_position FROM old) AS old, ${go} AS ok, ${version} AS version, ${snapshotWritten} AS snapshot_written,
           ${loaded.deps.length ? 'EXISTS (SELECT 1 FROM missed)' : 'false'} AS missed`;
      // a handful of shapes (which parts are sent): each is parsed and planned once per connection
      [row] = await this.db.prepared<typeof row[]>(`switchyard_write_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`, text, ...params);
    } catch (e) {
      this.remember(gateKey, undefined);
      throw e;
    }
    const old = row.old === null ? null : Number(row.old);
    if (!row.ok) {
      // what this process knew is no longer current: a newer recompute wrote, or another process or a rebuild did
      this.remember(gateKey, undefined);
      if (old !== before.gate && (old === null || old < loaded.sourcePosition)) throw new StaleBase();
      return { key: owner, written: false, snapshotChanged: false, sourcePosition: loaded.sourcePosition };
    }
    this.remember(gateKey, after);
    // a recompute that found the same hash stored keeps its version
    const snapshotChanged = Boolean(row.snapshot_written);
    const snapshotVersion = row.version === null ? undefined : Number(row.version);
    return {
      key: owner, written: true, snapshotChanged, sourcePosition: loaded.sourcePosition, deps: loaded.deps, snapshotVersion, missed: Boolean(row.missed),
      ...(snapshotChanged && body && snapshotVersion !== undefined ? { body: body(snapshotVersion) } : {}),
    };
  }

  /** Answers with the log position it read: every event below it is reflected. */
  async recomputeGatewayClass(name: string): Promise<number> {
    const stream = `GatewayClass//${name}`;
    const scope = this.opts.controllerName;
    const now = this.clock().toISOString();
    return this.db.transaction(async (tx: Tx) => {
      const [{ xmin }] = await tx.$queryRawUnsafe<{ xmin: bigint }[]>(`SELECT ${HORIZON} AS xmin`);
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
        return Number(xmin) * TX_SHIFT - 1;
      }
      await tx.$executeRawUnsafe(
        `INSERT INTO status_parts (stream, owner, position, status) VALUES ($1, $4, $2, $3::jsonb)
         ON CONFLICT (stream, owner) DO UPDATE SET position = excluded.position, status = excluded.status
           WHERE status_parts.position <= excluded.position`,
        stream, Number(xmin) * TX_SHIFT - 1, JSON.stringify(status), scope);
      return Number(xmin) * TX_SHIFT - 1;
    });
  }
}
