// One recompute: load a Gateway's world, translate it in the pure core, diff it against what was
// last written, and write the plan in one statement, unless a recompute from a newer log position
// has already written.
import type { Database } from '../adapters/store/database';
import { loadGatewayWorld, gatewayStream, loaderMemo, type GatewayWorld, type LoaderMemo } from '../adapters/store/world-loader';
import { ObjectCache } from '../adapters/store/object-cache';
import { compactSnapshot, readWritten, writeGatewayClassStatus, writeRecompute, type SnapshotContent, type Written } from '../adapters/store/recompute-write';
import { NOTICE_BODY_LIMIT } from '../adapters/delivery/channels';
import { scoped } from '../adapters/store/scope';
import { keepRecent } from '../core/model/recent';
import { deflateTailAsync } from '../adapters/delivery/snapshots';
import { secretDigests, snapshotBody, snapshotHead, snapshotTail } from '../core/snapshot/format';
import { tableHash } from '../core/snapshot/table-hash';
import { translate, gatewayClassStatus, DEFAULT_CAPACITY, TranslationContext, type Translation, type TranslateGatewayOptions } from '../core/translate';
import type { TableParts } from '../core/snapshot/table-parts';
import { tableTextOfParts, tableTextSteps } from '../core/snapshot/table-text';
import { snapshotDeltaText } from '../core/snapshot/delta';
import { planRecompute } from './recompute-plan';
import { streamKey } from '../core/objects/keys';

export { missedChanges } from '../adapters/store/recompute-write';

export interface ReconcileOptions {
  controllerName: string;
  /** the addresses the operator lets Gateways use (plain data for the core's translate) */
  addressPool?: readonly string[];
  clock?: () => Date;
  /**
   * The Kubernetes Events of status transitions are recorded with each write, as this instance
   * (reportingInstance), counting a repeat into its Event unless it was last seen longer ago than
   * the retention. Absent or a retention of 0: none are recorded.
   */
  events?: { instance: string; retentionSeconds: number };
}

export interface GatewayOutcome {
  key: string;
  written: boolean;
  snapshotVersion?: number;
  snapshotChanged: boolean;
  sourcePosition: number;
  /** what this recompute read or looked for (see missedChanges) */
  deps?: string[];
  /** the new snapshot's body made on demand, when it changed */
  bodyOf?: () => string;
  /** whether that body is small enough to travel with its notice */
  bodyFits?: boolean;
  /** the new snapshot's body's size in bytes, when this run stored its table whole and no body travels (a large table's size is known then, and at a compaction) */
  bodyBytes?: number;
  /** the delta to it from the version this process wrote before (openapi/schemas/snapshot-delta.yaml), when it changed */
  delta?: { from: number; text: string };
  /** the write found changes to its dependencies after its position (and recorded them as wanted) */
  missed?: boolean;
  /**
   * Stores the new version's whole table in place of the chain of deltas that leads to it, when
   * the chain has grown long: for the caller to run after the new version is announced (a whole
   * table of thousands of routes takes longer to make and store than the delta did). Answers the
   * version it stored and the size in bytes of its body, or undefined when it stored none.
   */
  compact?: () => Promise<{ version: number; bytes: number } | undefined>;
}

/** The byte size of snapshotBody(ns, name, version, tail), without making it (a large table's is tens of MB). */
function bodySize(ns: string, name: string, version: number, tail: string): number {
  return Buffer.byteLength(snapshotHead(ns, name)) + String(version).length + Buffer.byteLength(tail);
}

export function gatewayOwner(ns: string, name: string): string {
  return gatewayStream(ns, name);
}

/** How many Gateways' worlds, translations and last writes a worker keeps in memory: the one setting. */
const MEMORY_CAPACITY = DEFAULT_CAPACITY;

/** The table's text, made in steps with the event loop turning between them (other recomputes run meanwhile). */
async function textLater(parts: TableParts): Promise<string> {
  const steps = tableTextSteps(parts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * The translate step of a recompute, without I/O: from a Gateway's loaded world and what its last
 * recompute wrote, the translation, the table as parts (./core/snapshot/table-parts) and the
 * snapshot's hash over them. `ctx` is the translation memory kept across recomputes: what makes
 * both incremental. The table's whole text (the stored tail) is made only when asked for.
 * Exported so that the golden cases run exactly this.
 */
export function translateLoaded(loaded: GatewayWorld, ref: { namespace: string; name: string }, before: Written, opts: TranslateGatewayOptions, ctx: TranslationContext): {
  translation?: Translation; unattached: string; hash?: string; parts?: TableParts; tail: () => string;
  /** the same, made with the event loop turning every few thousand parts (see tableTextSteps) */
  tailLater: () => Promise<string>;
} {
  const translation = loaded.gateway
    ? translate(loaded.world, ref, opts, { gatewayStatus: before.gatewayStatus as never, parts: before.parts as ReadonlyMap<string, Record<string, unknown>> }, ctx)
    : undefined;
  const unattached = translation ? JSON.stringify(translation.unattached) : '[]';
  if (!translation) return { translation, unattached, tail: () => '', tailLater: async () => '' };
  const parts = translation.compiledParts;
  const hash = tableHash(parts, secretDigests(loaded.world.secrets));
  let tail: string | undefined;
  // the table's text is its parts' texts joined, made when a whole table is stored or sent
  return {
    translation, unattached, hash, parts,
    tail: () => (tail ??= snapshotTail(hash, tableTextOfParts(parts))),
    tailLater: async () => (tail ??= snapshotTail(hash, await textLater(parts))),
  };
}

class StaleBase extends Error {}

/**
 * The table a Gateway's last snapshot written here holds, as parts, with its version: the base of
 * the next delta. `chain`: the sizes of the deltas the store holds after its last whole tail, the
 * last one `version`'s; `wholeBytes` that tail's size.
 */
interface HeldTable {
  version: number;
  parts: TableParts;
  chain: readonly number[];
  wholeBytes: number;
}

const chainBytes = (chain: readonly number[]) => chain.reduce((a, b) => a + b, 0);

/**
 * A version is stored as its delta from the one before while the deltas since the last whole table
 * stay few and small beside it: a reader rebuilds the body from that table and its deltas, so the
 * chain is cut (a whole table written in its place, after the version is announced) every
 * MAX_CHAIN versions or once the deltas add up to a quarter of the table. Storing a whole table
 * costs in proportion to the table (a 6 MB table's text joined and deflated took the CPU of the
 * next change's recompute, 100 ms at 5,000 routes), so the cut is made rarely: a reader loading
 * cold applies at most this many small deltas, well under what parsing the whole table costs.
 */
const MAX_CHAIN = 256;
const CHAIN_SHARE = 4;

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
  /** by gate key (see HeldTable) */
  private readonly tables = new Map<string, HeldTable>();
  /** the run of each Gateway under way here, "ns/name" (see recomputeGateway) */
  private readonly running = new Map<string, Promise<GatewayOutcome>>();
  /** gate keys whose whole table is being stored in place of their chain (one at a time each) */
  private readonly compacting = new Set<string>();

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
    // One run of a Gateway at a time here: a run that holds the event loop past the queue's lock
    // (a whole translation of 50,000 routes takes seconds) has its job handed out again, and two
    // runs at once would lose one's write and leave the next to start from the store. The second
    // waits, then runs (what it was asked for may be newer than what the first read).
    const key = `${ns}/${name}`;
    const run = (this.running.get(key) ?? Promise.resolve()).then(() => this.recomputeRetrying(ns, name, atLeast), () => this.recomputeRetrying(ns, name, atLeast));
    this.running.set(key, run);
    try {
      return await run;
    } finally {
      if (this.running.get(key) === run) this.running.delete(key);
    }
  }

  private async recomputeRetrying(ns: string, name: string, atLeast: number | undefined): Promise<GatewayOutcome> {
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
    // nothing has reached the log since the write it remembers (a job handed out again while a long
    // run held the event loop, or asked for twice): the store takes no write from the same position,
    // and a run that lost one forgets what it remembered, so the next one would read every status
    // entry back from the store (6 s at 50,000 routes)
    if (before.gate !== null && this.cache.position <= before.gate) {
      return { key: owner, written: false, snapshotChanged: false, sourcePosition: before.gate };
    }

    // load
    const loaded = await loadGatewayWorld(this.cache, ns, name, this.loaded, before.gatewayStatus);
    const now = this.clock().toISOString();

    // translate
    const held = this.tables.get(gateKey);
    const { translation, unattached, hash, parts, tail, tailLater } = translateLoaded(loaded, { namespace: ns, name }, before, { controllerName: scope, now, addressPool: this.opts.addressPool }, this.translation);

    // diff: a new table is stored as its delta from the held one while the chain allows (see
    // MAX_CHAIN); a chain that grew past it is cut after the notice (see `compact`), and one twice
    // past it (the cuts did not land) here
    const gateway = { namespace: ns, name };
    let stored: SnapshotContent | undefined;
    if (hash !== undefined && parts && before.hash !== hash) {
      const delta = held && held.chain.length < 2 * MAX_CHAIN
        ? snapshotDeltaText(gateway, held.version, held.version + 1, hash, held.parts, parts) : undefined;
      stored = delta !== undefined && (chainBytes(held!.chain) + delta.length) * CHAIN_SHARE <= 2 * held!.wholeBytes
        ? { delta: { from: held!.version, text: delta } }
        : { tailZ: await deflateTailAsync(tail()), wholeBytes: tail().length, ...(delta !== undefined ? { deltaText: delta } : {}) };
    }
    const content = (): SnapshotContent => stored!;
    const { plan, after } = planRecompute(before, {
      gateKey, owner, scope, routeOwner: gateKey, sourcePosition: loaded.sourcePosition, now, durationMs: performance.now() - started,
      deps: loaded.deps,
      statuses: translation && { gatewayStatus: translation.gatewayStatus, routeParents: translation.routeParents, policyAncestors: translation.policyAncestors, listenerSets: translation.listenerSetStatuses },
      snapshot: hash !== undefined ? { hash, unattached, content } : undefined,
      events: this.opts.events && this.opts.events.retentionSeconds > 0 ? this.opts.events : undefined,
    });

    // write
    let row;
    try {
      row = await writeRecompute(this.db, plan);
    } catch (e) {
      this.remember(gateKey, undefined);
      throw e;
    }
    // the held table stays the base of the next delta unless the store moved past it (the write
    // of a delta checks that the store still holds the version it was made from)
    if (row.chainBroken) {
      // the store no longer holds the version the delta was made from: the table is written whole
      this.remember(gateKey, undefined);
      this.tables.delete(gateKey);
      throw new StaleBase();
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
    let delta: { from: number; text: string } | undefined;
    let compact: (() => Promise<{ version: number; bytes: number } | undefined>) | undefined;
    if (!translation || !parts || snapshotVersion === undefined) this.tables.delete(gateKey);
    else if (row.snapshotWritten && stored && 'delta' in stored) {
      delta = stored.delta;
      const next: HeldTable = { version: snapshotVersion, parts, chain: [...held!.chain, delta.text.length], wholeBytes: held!.wholeBytes };
      keepRecent(this.tables, gateKey, next, MEMORY_CAPACITY);
      if (next.chain.length >= MAX_CHAIN || chainBytes(next.chain) * CHAIN_SHARE > next.wholeBytes) {
        // the store may have moved on by the time this version's table is stored: the deltas after
        // it stay, and chain from it
        compact = async () => {
          // one at a time: the changes that follow while it is stored ask for it too
          if (this.compacting.has(gateKey)) return undefined;
          this.compacting.add(gateKey);
          try {
            const tailZ = await deflateTailAsync(await tailLater());
            if (!(await compactSnapshot(this.db, owner, scope, snapshotVersion, tailZ))) return undefined;
            const now = this.tables.get(gateKey);
            if (now && now.version >= snapshotVersion) {
              const after = now.version - snapshotVersion;
              keepRecent(this.tables, gateKey, { ...now, chain: after === 0 ? [] : now.chain.slice(-after), wholeBytes: tail().length }, MEMORY_CAPACITY);
            }
            return { version: snapshotVersion, bytes: bodySize(ns, name, snapshotVersion, tail()) };
          } finally {
            this.compacting.delete(gateKey);
          }
        };
      }
    } else if (row.snapshotWritten && stored && 'tailZ' in stored) {
      // the whole table was stored: the delta from the held version still goes to delta watchers
      if (held && held.version < snapshotVersion) {
        delta = { from: held.version, text: stored.deltaText !== undefined && snapshotVersion === held.version + 1 ? stored.deltaText : snapshotDeltaText(gateway, held.version, snapshotVersion, hash!, held.parts, parts) };
      }
      keepRecent(this.tables, gateKey, { version: snapshotVersion, parts, chain: [], wholeBytes: stored.wholeBytes }, MEMORY_CAPACITY);
    } else if (held && held.version === snapshotVersion) {
      // the same content (the same hash) at the same version: these parts hold it as well
      keepRecent(this.tables, gateKey, { ...held, parts }, MEMORY_CAPACITY);
    } else {
      // what the store holds after its whole table is not known here: the next change writes one
      this.tables.delete(gateKey);
    }
    const changed = row.snapshotWritten && snapshotVersion !== undefined && plan.snapshot.kind === 'put' && plan.snapshot.content !== undefined;
    const bodyOf = changed ? () => snapshotBody(ns, name, snapshotVersion!, tail()) : undefined;
    const size = stored && 'wholeBytes' in stored ? stored.wholeBytes : held?.wholeBytes ?? Infinity;
    const bodyFits = bodyOf !== undefined && size <= NOTICE_BODY_LIMIT;
    // a body that fits is measured from itself when the gauge is read
    const bodyBytes = !bodyFits && changed && stored && 'tailZ' in stored ? bodySize(ns, name, snapshotVersion!, tail()) : undefined;
    return {
      key: owner, written: true, snapshotChanged: row.snapshotWritten, sourcePosition: loaded.sourcePosition, deps: loaded.deps,
      snapshotVersion, missed: row.missed, ...(bodyOf ? { bodyOf, bodyFits } : {}), ...(bodyBytes !== undefined ? { bodyBytes } : {}), ...(delta ? { delta } : {}),
      ...(compact ? { compact } : {}),
    };
  }

  /** Answers with the log position it read: every event below it is reflected. */
  async recomputeGatewayClass(name: string): Promise<number> {
    const scope = this.opts.controllerName;
    const now = this.clock().toISOString();
    return writeGatewayClassStatus(this.db, streamKey('GatewayClass', '', name), scope, now,
      (gc, current) => gatewayClassStatus(gc as never, { controllerName: scope, now }, current as never));
  }
}
