// The Services and EndpointSlices that this API process's Destination.Get streams follow, kept
// current from the event log: every change, whichever process or worker wrote it, is an event, and
// the bus's "the log grew" notice (or, failing that, a slow poll) says when to read on. One read of
// the log per change serves every stream, however many follow one Service. A Service is read from
// the objects when its first stream opens and let go when its last one closes.
import type { Logger } from 'pino';
import type { Database } from '../store/database';
import type { Bus } from '../delivery/bus';
import { eventsChannel, subscribe } from '../delivery/channels';
import { discoveryHorizon, readDiscoveryEvents, readServiceRows, servicesWithClusterIP } from '../store/discovery-reads';
import { applyToView, newView, slicesOf, type ServiceView } from '../../core/linkerd/service-view';
import { serviceEndpoints, type EndpointsState } from '../../core/linkerd/endpoints';
import type { Service } from '../../core/model/objects';

const PAGE = 1000;
/** how often the log is read while something is followed and no notice came (a lost notice costs at most this) */
const POLL_MS = 2000;

export interface FollowedService {
  readonly namespace: string;
  readonly name: string;
  /** the endpoints of one port now (the same value until the Service or its slices change) */
  endpoints(port: number): EndpointsState;
  /** the Service now, or null when there is none */
  service(): Service | null;
}

type Listener = (s: FollowedService) => void;

class Entry implements FollowedService {
  readonly view: ServiceView;
  readonly listeners = new Set<Listener>();
  /** streams following it, those still waiting for its first read included */
  users = 0;
  ready: Promise<void> = Promise.resolve();
  private memo = new Map<number, EndpointsState>();
  constructor(readonly namespace: string, readonly name: string) {
    this.view = newView(namespace, name);
  }
  changed(): void {
    this.memo.clear();
  }
  endpoints(port: number): EndpointsState {
    let s = this.memo.get(port);
    if (!s) this.memo.set(port, (s = serviceEndpoints(this.view.service.object, port, slicesOf(this.view))));
    return s;
  }
  service(): Service | null {
    return this.view.service.object;
  }
}

interface AddressEntry {
  ip: string;
  resolved: string | null;
  listeners: Set<(key: { namespace: string; name: string } | null) => void>;
  users: number;
  ready: Promise<void>;
}

export class EndpointsHub {
  private readonly entries = new Map<string, Entry>();
  private readonly addresses = new Map<string, AddressEntry>();
  private cursor: number | null = null;
  /** every read of the store and every change to the entries, one after another */
  private chain: Promise<void> = Promise.resolve();
  private queued = false;
  private stopBus: (() => void) | null = null;
  private poll: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly db: Database, private readonly bus: Bus, private readonly logger: Logger) {}

  private run(step: () => Promise<void>): Promise<void> {
    const p = this.chain.then(step);
    this.chain = p.catch(() => undefined);
    return p;
  }

  private start(): void {
    if (this.stopBus || this.closed) return;
    this.stopBus = subscribe(this.bus, eventsChannel, () => this.kick());
    this.poll = setInterval(() => this.kick(), POLL_MS);
    this.poll.unref();
    void this.run(async () => {
      this.cursor ??= await discoveryHorizon(this.db.sql);
    }).catch((err) => this.logger.warn({ err }, 'Linkerd destination API: reading the log\'s position failed; the next notice retries'));
  }

  private stopIfIdle(): void {
    if (this.entries.size || this.addresses.size || !this.stopBus) return;
    this.stopBus();
    this.stopBus = null;
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
    // what is followed next is read afresh, from a position taken then
    this.cursor = null;
  }

  /** Reads the log on from the cursor (once, however many notices asked meanwhile). */
  kick(): void {
    if (this.queued || this.closed) return;
    this.queued = true;
    void this.run(async () => {
      this.queued = false;
      await this.catchUp();
    }).catch((err) => this.logger.warn({ err }, 'Linkerd destination API: reading the log failed; the next notice or poll retries'));
  }

  private async catchUp(): Promise<void> {
    if (this.closed || (!this.entries.size && !this.addresses.size)) return;
    this.cursor ??= await discoveryHorizon(this.db.sql);
    const changed = new Set<Entry>();
    const ips = new Set<AddressEntry>();
    for (;;) {
      const { items, next, more } = await readDiscoveryEvents(this.db.sql, this.cursor, PAGE);
      for (const ev of items) {
        if (ev.kind === 'Service') {
          const e = this.entries.get(`${ev.namespace}/${ev.name}`);
          if (e && applyToView(e.view, ev)) changed.add(e);
          for (const a of this.addresses.values()) if (a.resolved === `${ev.namespace}/${ev.name}` || mentions(ev.object as Service, a.ip)) ips.add(a);
        } else {
          // a slice may move from one Service to another: every followed Service of its namespace looks
          for (const e of this.entries.values()) if (e.namespace === ev.namespace && applyToView(e.view, ev)) changed.add(e);
        }
      }
      // a page that did not move the cursor (a transaction holds the horizon below it) is read
      // again at the next notice, not in a loop now
      const moved = next > this.cursor;
      this.cursor = next;
      if (!more || !moved) break;
    }
    for (const a of ips) await this.resolve(a);
    for (const e of changed) {
      e.changed();
      for (const l of [...e.listeners]) l(e);
    }
  }

  /**
   * Follows Service `namespace/name`: `listener` is called with it once read, then after every
   * change. Returns the call that stops following.
   */
  async follow(namespace: string, name: string, listener: Listener): Promise<() => void> {
    this.start();
    const key = `${namespace}/${name}`;
    let e = this.entries.get(key);
    if (!e) {
      const entry = (e = new Entry(namespace, name));
      this.entries.set(key, entry);
      entry.ready = this.run(async () => {
        for (const row of await readServiceRows(this.db.sql, namespace, name)) applyToView(entry.view, row);
      });
      // a failed read is not kept: the next stream reads again
      entry.ready.catch(() => this.entries.get(key) === entry && this.entries.delete(key));
    }
    const entry = e;
    entry.users++;
    const leave = () => {
      entry.listeners.delete(listener);
      if (--entry.users === 0 && this.entries.get(key) === entry) this.entries.delete(key);
      this.stopIfIdle();
    };
    try {
      await entry.ready;
    } catch (err) {
      leave();
      throw err;
    }
    // added once read: what the log changed meanwhile is in what it is called with now
    entry.listeners.add(listener);
    listener(entry);
    let left = false;
    return () => {
      if (!left) leave();
      left = true;
    };
  }

  /** Follows which Service has cluster IP `ip` (null: none): called once known, then on every change. */
  async followAddress(ip: string, listener: (key: { namespace: string; name: string } | null) => void): Promise<() => void> {
    this.start();
    let a = this.addresses.get(ip);
    if (!a) {
      const entry: AddressEntry = (a = { ip, resolved: null, listeners: new Set(), users: 0, ready: Promise.resolve() });
      this.addresses.set(ip, entry);
      entry.ready = this.run(() => this.resolve(entry, false));
      entry.ready.catch(() => this.addresses.get(ip) === entry && this.addresses.delete(ip));
    }
    const entry = a;
    entry.users++;
    const leave = () => {
      entry.listeners.delete(listener);
      if (--entry.users === 0 && this.addresses.get(ip) === entry) this.addresses.delete(ip);
      this.stopIfIdle();
    };
    try {
      await entry.ready;
    } catch (err) {
      leave();
      throw err;
    }
    entry.listeners.add(listener);
    listener(split(entry.resolved));
    let left = false;
    return () => {
      if (!left) leave();
      left = true;
    };
  }

  private async resolve(a: AddressEntry, notify = true): Promise<void> {
    const found = await servicesWithClusterIP(this.db.sql, a.ip);
    const resolved = found[0] ? `${found[0].namespace}/${found[0].name}` : null;
    if (resolved === a.resolved) return;
    a.resolved = resolved;
    if (notify) for (const l of [...a.listeners]) l(split(resolved));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopBus?.();
    this.stopBus = null;
    if (this.poll) clearInterval(this.poll);
    this.entries.clear();
    this.addresses.clear();
    await this.chain;
  }
}

function split(key: string | null): { namespace: string; name: string } | null {
  if (key === null) return null;
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

function mentions(service: Service | undefined, ip: string): boolean {
  const spec = service?.spec;
  return spec?.clusterIP === ip || (spec?.clusterIPs ?? []).includes(ip);
}
