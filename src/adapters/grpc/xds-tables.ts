// The Gateways' tables as the xDS streams of this process see them: followed through the snapshot
// hub (src/adapters/delivery/snapshots.ts), which holds each Gateway's current table and hears of
// new versions from whichever worker made them, so any API process serves any Gateway. Each table
// version is translated per listener name once, whatever the number of streams, and each resource
// encoded once. A new version carries over the translations the worker's delta to it does not
// touch (core/xds/carry-over): a one-route change retranslates the names that route reaches, the
// table is parsed only when some name must be, and the resources left alone are the same objects
// with the same encodings, so no stream is sent them again.
import { createHash } from 'node:crypto';
import type { SnapshotHub } from '../delivery/snapshots';
import type { CompiledTable } from '../../core/compile';
import type { SnapshotSecret } from '../../core/compile';
import { PROXYLESS_ENTRY_LISTS, proxylessListener, proxylessResources, type ProxylessListener } from '../../core/xds/proxyless';
import { envoyResources, type EnvoyResources } from '../../core/xds/envoy';
import { carryOver, deltaScope } from '../../core/xds/carry-over';
import type { SnapshotDelta } from '../../core/snapshot/delta';
import { TYPE_URL, type ResourceKind } from '../../core/xds/types';
import type { Encoded, Universe } from './ads-streams';
import { encodeMessage } from './xds-protos';

export interface GatewayTable {
  /** the snapshot version; null when the Gateway has no table (it does not exist, or is not ours) */
  version: number | null;
  /** the compiled table, parsed when first asked for; null when there is none */
  table: () => CompiledTable | null;
  /** per listener name, its translation (made when first asked for, or carried over from the version before) */
  memo: Map<string, ProxylessListener | null>;
  /** the Secret data the table names: every stream is of a token that holds the Gateway (xds-server's authorize) */
  secrets: SnapshotSecret[];
  /** the Envoy translation (made when an Envoy node first asks) */
  envoy?: EnvoyResources;
  /** milliseconds from the hub's notice of this version to the table in hand */
  loadMs: number;
  /** how many translations the version before passed on through the worker's delta (none without one) */
  carried: number;
  /** what clients subscribed to the same names can be sent, by the names: made once for all of them */
  universes?: Map<string, Universe>;
}

/** streams told of a new table before the responses made so far are let go */
const TELL_SLICE = 500;

/** at most this many distinct subscriptions' universes are kept per table version */
const UNIVERSES_KEPT = 256;

const KINDS: ResourceKind[] = ['listener', 'route', 'cluster', 'endpoint', 'secret'];
const encodedOf = new WeakMap<object, Encoded>();

function encoded(kind: ResourceKind, name: string, res: object): Encoded {
  let e = encodedOf.get(res);
  if (!e) {
    const bytes = encodeMessage(TYPE_URL[kind], res);
    e = { name, version: createHash('sha256').update(bytes).digest('base64url').slice(0, 16), bytes };
    encodedOf.set(res, e);
  }
  return e;
}

export class XdsTables {
  private held = new Map<string, GatewayTable>();
  private loading = new Map<string, Promise<GatewayTable>>();
  private watchers = new Map<string, Set<(t: GatewayTable) => void>>();
  private stops = new Map<string, () => void>();

  constructor(private readonly hub: SnapshotHub) {}

  /** The Gateway's table now (loaded through the hub when this process does not hold it). */
  current(key: string): Promise<GatewayTable> {
    const held = this.held.get(key);
    if (held) return Promise.resolve(held);
    return this.load(key);
  }

  private load(key: string): Promise<GatewayTable> {
    let p = this.loading.get(key);
    if (p) return p;
    p = (async () => {
      const started = performance.now();
      const snap = await this.hub.get(key);
      const whole = snap ? await this.hub.whole(snap) : null;
      const secrets = whole ? await this.hub.secrets(whole) : [];
      const loadMs = performance.now() - started;
      const prev = this.held.get(key);
      // a load that lands after a newer version is kept
      if (prev && prev.version !== null && whole && prev.version >= whole.version) return prev;
      if (prev && prev.version === (whole?.version ?? null)) return prev;
      const memo = prev?.version != null && whole ? this.carried(key, prev, whole.version) : new Map<string, ProxylessListener | null>();
      // held once parsed, while the version is current: the hub's own copy may be let go between two names
      let parsed: CompiledTable | undefined;
      const next: GatewayTable = whole
        ? { version: whole.version, table: () => (parsed ??= whole.table()), memo, secrets, loadMs, carried: memo.size }
        : { version: null, table: () => null, memo, secrets, loadMs, carried: 0 };
      if (this.watchers.has(key)) this.held.set(key, next);
      this.tell(key, next);
      return next;
    })().finally(() => this.loading.delete(key));
    this.loading.set(key, p);
    return p;
  }

  /**
   * Hands a new table to the streams following `key`, a slice at a time: the responses of each slice
   * go out (and reach the clients) while the next is made, instead of every stream's waiting for
   * the last one's. A newer table arriving meanwhile takes over, from the first stream.
   */
  private tell(key: string, t: GatewayTable): void {
    const fns = [...(this.watchers.get(key) ?? [])];
    const slice = (from: number) => {
      for (let i = from; i < fns.length; i++) {
        if (this.held.get(key) !== t && this.watchers.has(key)) return;
        if (i > from && i % TELL_SLICE === 0) return void setImmediate(() => slice(i));
        // a stream that stopped following meanwhile is not told
        if (this.watchers.get(key)?.has(fns[i])) fns[i](t);
      }
    };
    slice(0);
  }

  /** The translations of `prev` still valid at version `to`, by the worker's deltas from it (none when they are not all held). */
  private carried(key: string, prev: GatewayTable, to: number): Map<string, ProxylessListener | null> {
    if (prev.memo.size === 0) return new Map();
    const chain = this.hub.deltas.offeredChain(key, prev.version!, to);
    if (!chain) return new Map();
    try {
      return carryOver(prev.memo, deltaScope(chain.map((c) => JSON.parse(c.text) as SnapshotDelta), PROXYLESS_ENTRY_LISTS));
    } catch {
      return new Map();
    }
  }

  /** Calls fn with each new table of `key` until the returned function is called. */
  watch(key: string, fn: (t: GatewayTable) => void): () => void {
    let set = this.watchers.get(key);
    if (!set) {
      this.watchers.set(key, (set = new Set()));
      this.stops.set(key, this.hub.watch(key, () => void this.reloadSoon(key), 'whole'));
    }
    set.add(fn);
    let stopped = false;
    return () => {
      // a stream's end is told more than once ('end', 'cancelled', 'close'): a second stop must not
      // drop the watch another stream of the Gateway started since
      if (stopped) return;
      stopped = true;
      set!.delete(fn);
      if (set!.size === 0 && this.watchers.get(key) === set) {
        this.watchers.delete(key);
        this.held.delete(key);
        this.stops.get(key)?.();
        this.stops.delete(key);
      }
    };
  }

  private reloadSoon(key: string): void {
    // a notice during a load: load again after it, so the newest version is the one kept
    const pending = this.loading.get(key);
    if (pending) void pending.then(() => this.load(key));
    else void this.load(key);
  }

  /**
   * What a client can be sent from `t`. A node that subscribes to every Listener (the wildcard) is
   * an Envoy: it gets the Gateway as Envoy runs it (src/core/xds/envoy). One that names listeners
   * "<hostname>:<port>" is a proxyless gRPC client: it gets those API listeners.
   */
  universe(t: GatewayTable, listenerNames: string[] | 'wildcard'): Universe {
    // ten thousand streams subscribed to the same names are sent from one universe
    const key = listenerNames === 'wildcard' ? '*' : [...listenerNames].sort().join('\n');
    const kept = t.universes?.get(key);
    if (kept) return kept;
    const u = this.make(t, listenerNames);
    t.universes ??= new Map();
    if (t.universes.size >= UNIVERSES_KEPT) t.universes.delete(t.universes.keys().next().value!);
    t.universes.set(key, u);
    return u;
  }

  private make(t: GatewayTable, listenerNames: string[] | 'wildcard'): Universe {
    const u = Object.fromEntries(KINDS.map((k) => [k, new Map<string, Encoded>()])) as Universe;
    if (t.version === null) return u;
    if (listenerNames === 'wildcard') {
      const table = t.table();
      if (!table) return u;
      t.envoy ??= envoyResources(table, t.secrets);
      for (const k of KINDS) for (const [name, res] of t.envoy[k]) u[k].set(name, encoded(k, name, res));
      return u;
    }
    const r = proxylessResources(null, listenerNames, (name) => {
      if (!t.memo.has(name)) {
        const table = t.table();
        t.memo.set(name, table ? proxylessListener(table, name) : null);
      }
      return t.memo.get(name)!;
    });
    for (const k of KINDS) for (const [name, res] of r[k]) u[k].set(name, encoded(k, name, res));
    return u;
  }
}
