// One recompute: load a Gateway's world, translate it in the pure core, diff it against what was
// last written, and write the plan in one statement, unless a recompute from a newer log position
// has already written.
import type { Database } from '../adapters/store/database';
import { loadGatewayWorld, gatewayStream, loaderMemo, type GatewayWorld, type LoaderMemo } from '../adapters/store/world-loader';
import { ObjectCache } from '../adapters/store/object-cache';
import { readWritten, writeGatewayClassStatus, writeRecompute, type Written } from '../adapters/store/recompute-write';
import { scoped } from '../adapters/store/scope';
import { keepRecent } from '../core/model/recent';
import { deflateTail } from '../adapters/delivery/snapshots';
import { secretDigests, snapshotBody, snapshotHash, snapshotTail } from '../core/snapshot/format';
import { translate, gatewayClassStatus, DEFAULT_CAPACITY, TranslationContext, type Translation, type TranslateGatewayOptions } from '../core/translate';
import { partIdsOf, ruleBodyOf, tableJson } from '../core/compile';
import { tableParts, type PartSources, type TableParts } from '../core/snapshot/table-parts';
import { snapshotDelta } from '../core/snapshot/delta';
import { planRecompute } from './recompute-plan';
import { streamKey } from '../core/objects/keys';

export { missedChanges } from '../adapters/store/recompute-write';

export interface ReconcileOptions {
  controllerName: string;
  /** the addresses the operator lets Gateways use (plain data for the core's translate) */
  addressPool?: readonly string[];
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
  /** the delta to it from the version this process wrote before (openapi/schemas/snapshot-delta.yaml), when it changed */
  delta?: { from: number; text: string };
  /** the write found changes to its dependencies after its position (and recorded them as wanted) */
  missed?: boolean;
}

export function gatewayOwner(ns: string, name: string): string {
  return gatewayStream(ns, name);
}

/** How many Gateways' worlds, translations and last writes a worker keeps in memory: the one setting. */
const MEMORY_CAPACITY = DEFAULT_CAPACITY;

/**
 * The translate step of a recompute, without I/O: from a Gateway's loaded world and what its last
 * recompute wrote, the translation, its table, and the snapshot's hash and stored tail. Exported so
 * that the golden cases run exactly this.
 */
/**
 * The translate step of a recompute: statuses, the table and its snapshot hash and tail. `ctx` is
 * the translation memory kept across recomputes (what makes them incremental).
 */
export function translateLoaded(loaded: GatewayWorld, ref: { namespace: string; name: string }, before: Written, opts: TranslateGatewayOptions, ctx: TranslationContext): {
  translation?: Translation; unattached: string; hash?: string; tail: string;
} {
  const translation = loaded.gateway
    ? translate(loaded.world, ref, opts, { gatewayStatus: before.gatewayStatus as never, parts: before.parts as ReadonlyMap<string, Record<string, unknown>> }, ctx)
    : undefined;
  const unattached = translation ? JSON.stringify(translation.unattached) : '[]';
  // compile's output is byte-for-byte deterministic, so its JSON is serialized once, natively, and
  // serves the hash, the stored tail and the notice's body (see core/snapshot/format)
  const tableText = translation ? tableJson(translation.table, ctx) : undefined;
  const hash = tableText !== undefined ? snapshotHash(tableText, secretDigests(loaded.world.secrets)) : undefined;
  const tail = hash !== undefined ? snapshotTail(hash, tableText!) : '';
  return { translation, unattached, hash, tail };
}

class StaleBase extends Error {}

export class Reconciler {
  private readonly clock: () => Date;
  readonly cache: ObjectCache;
  /**
   * What each Gateway's last recompute wrote, as this process knows it: trusted only while the
   * Gateway's gate row still shows that write (another process, or a rebuild, may have written since).
   */
  private readonly written = new Map<string, Written>();
  private readonly loaded: LoaderMemo = loaderMemo(MEMORY_CAPACITY);
  private readonly translation = new TranslationContext({ capacity: MEMORY_CAPACITY });
  /** the parts of the table each Gateway's last snapshot written here holds, and its version: the base of the next delta */
  private readonly parts = new Map<string, { version: number; parts: TableParts }>();
  private readonly sources: PartSources = { rule: (r) => ruleBodyOf(this.translation, r), ids: (table) => partIdsOf(this.translation, table) };

  constructor(private readonly db: Database, private readonly opts: ReconcileOptions) {
    this.clock = opts.clock ?? (() => new Date());
    this.cache = new ObjectCache(db);
  }

  /** What this controller last wrote for a Gateway, from memory or else from the store. */
  private async writtenFor(gateKey: string, owner: string): Promise<Written> {
    const hit = this.written.get(gateKey);
    if (hit) return keepRecent(this.written, gateKey, hit, MEMORY_CAPACITY);
    return readWritten(this.db, gateKey, owner, this.opts.controllerName);
  }

  private remember(gateKey: string, w: Written | undefined): void {
    if (w) keepRecent(this.written, gateKey, w, MEMORY_CAPACITY);
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
    const gateKey = scoped(scope, owner);
    if (atLeast === undefined || this.cache.position < atLeast) await this.cache.sync();
    const before = await this.writtenFor(gateKey, owner);

    // load
    const loaded = await loadGatewayWorld(this.cache, ns, name, this.loaded, before.gatewayStatus);
    const now = this.clock().toISOString();

    // translate
    const { translation, unattached, hash, tail } = translateLoaded(loaded, { namespace: ns, name }, before, { controllerName: scope, now, addressPool: this.opts.addressPool }, this.translation);

    // diff
    const { plan, after } = planRecompute(before, {
      gateKey, owner, scope, routeOwner: gateKey, sourcePosition: loaded.sourcePosition, now, durationMs: performance.now() - started,
      deps: loaded.deps,
      statuses: translation && { gatewayStatus: translation.gatewayStatus, routeParents: translation.routeParents, policyAncestors: translation.policyAncestors, listenerSets: translation.listenerSetStatuses },
      snapshot: hash !== undefined ? { hash, unattached, content: () => deflateTail(tail) } : undefined,
    });

    // write
    let row;
    try {
      row = await writeRecompute(this.db, plan);
    } catch (e) {
      this.remember(gateKey, undefined);
      throw e;
    }
    if (!row.ok) {
      // what this process knew is no longer current: a newer recompute wrote, or another process or a rebuild did
      this.remember(gateKey, undefined);
      if (row.old !== before.gate && (row.old === null || row.old < loaded.sourcePosition)) throw new StaleBase();
      return { key: owner, written: false, snapshotChanged: false, sourcePosition: loaded.sourcePosition };
    }
    this.remember(gateKey, after);
    // a recompute that found the same hash stored keeps its version
    const snapshotVersion = row.version ?? undefined;
    const body = row.snapshotWritten && snapshotVersion !== undefined && plan.snapshot.kind === 'put' && plan.snapshot.content
      ? snapshotBody(ns, name, snapshotVersion, tail) : undefined;
    const delta = body !== undefined && translation && hash !== undefined ? this.deltaTo(gateKey, { namespace: ns, name }, snapshotVersion!, hash, translation) : undefined;
    if (!translation) this.parts.delete(gateKey);
    return {
      key: owner, written: true, snapshotChanged: row.snapshotWritten, sourcePosition: loaded.sourcePosition, deps: loaded.deps,
      snapshotVersion, missed: row.missed, ...(body !== undefined ? { body } : {}), ...(delta ? { delta } : {}),
    };
  }

  /**
   * The delta from the last snapshot this process wrote for the Gateway to the one just written.
   * Parts of rules, routes and entries the compile did not remake are not serialized again, so it
   * costs in proportion to the change; the API sends it to delta watchers without parsing a table.
   */
  private deltaTo(gateKey: string, gateway: { namespace: string; name: string }, version: number, hash: string, t: Translation): { from: number; text: string } | undefined {
    const prev = this.parts.get(gateKey);
    const parts = tableParts(t.table, prev?.parts, this.sources);
    keepRecent(this.parts, gateKey, { version, parts }, MEMORY_CAPACITY);
    if (!prev || prev.version >= version) return undefined;
    return { from: prev.version, text: JSON.stringify(snapshotDelta(gateway, prev.version, version, hash, prev.parts, parts)) };
  }

  /** Answers with the log position it read: every event below it is reflected. */
  async recomputeGatewayClass(name: string): Promise<number> {
    const scope = this.opts.controllerName;
    const now = this.clock().toISOString();
    return writeGatewayClassStatus(this.db, streamKey('GatewayClass', '', name), scope, now,
      (gc, current) => gatewayClassStatus(gc as never, { controllerName: scope, now }, current as never));
  }
}
