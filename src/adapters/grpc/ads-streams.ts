// The ADS protocol per stream, both variants, as go-control-plane's pkg/server/v3 defines them (our
// own code): per type, what the client subscribed to, what it was sent under which nonce, what it
// acknowledged, and the versions it refused (never sent again; the next change is). A resource's
// version is the digest of its encoding, the same on every API process, so a client that reconnects
// with what it holds (SotW version_info, delta initial_resource_versions) is not sent it again.
// Pushes go in go-control-plane's ADS order: clusters and endpoints first, then listeners and
// routes, and a cluster the routes stop naming is withdrawn only after the routes.
import { createHash } from 'node:crypto';
import { TYPE_URL, kindOfTypeUrl, type ResourceKind } from '../../core/xds/types';

/** One resource as sent: its name, version and encoding. */
export interface Encoded { name: string; version: string; bytes: Uint8Array }

/** What a stream can be sent now: per kind, the resources by name (for the names the client asked for). */
export type Universe = Record<ResourceKind, Map<string, Encoded>>;

/** Per kind, what the client acknowledged and what it refused last, for proxy-status. */
export interface TypeStatus { acked?: string; nacked?: { version: string; error: string } }

export const isWildcardKind = (k: ResourceKind) => k === 'listener' || k === 'cluster' || k === 'secret';

const digests = new Map<string, string>();
/** a short digest of `parts`; the last few thousand kept (ten thousand streams acknowledge the same responses) */
const digest = (parts: string[]) => {
  const text = parts.join('\n');
  let d = digests.get(text);
  if (d === undefined) {
    d = createHash('sha256').update(text).digest('base64url').slice(0, 16);
    if (digests.size >= 4096) digests.delete(digests.keys().next().value!);
    digests.set(text, d);
  }
  return d;
};

/** per universe and kind, a signature of its resources (names and versions), made once for every stream sent from it */
const signatures = new WeakMap<Universe, Partial<Record<ResourceKind, string>>>();
export function signatureOf(u: Universe, kind: ResourceKind): string {
  let sigs = signatures.get(u);
  if (!sigs) signatures.set(u, (sigs = {}));
  let sig = sigs[kind];
  if (sig === undefined) {
    sig = '';
    for (const [name, e] of u[kind]) sig += `${name}\t${e.version}\n`;
    sigs[kind] = sig;
  }
  return sig;
}

/** Per kind and stream: the protocol's state. */
export interface StreamOps {
  /** the listener names the client subscribed to (a proxyless client's route names count) */
  readonly listenerNames: () => string[] | 'wildcard';
  status(): Partial<Record<ResourceKind, TypeStatus>>;
  /** counts the changes of status(): a caller that saw this number has seen the status as it is */
  readonly revision: number;
  /** every response sent has been acknowledged (none refused, none awaiting an answer) */
  settled(): boolean;
}

interface Request { typeUrl: string; nonce: string; error?: string }

/** Whether a subscription (null: wildcard) holds exactly `names`. */
function sameNames(held: Set<string> | null, names: string[]): boolean {
  if (!held) return names.length === 0 || names.includes('*');
  const asked = new Set(names);
  return asked.size === held.size && [...asked].every((n) => held.has(n));
}

let nonces = 0;
const nextNonce = () => (++nonces).toString(36);

// ---------------------------------------------------------------- state of the world

export interface SotwRequest extends Request { versionInfo: string; names: string[] }
export interface SotwResponse { version_info: string; resources: { type_url: string; value: Uint8Array }[]; type_url: string; nonce: string }

interface SotwType {
  subscribed: boolean;
  /** null: every resource (a wildcard subscription) */
  names: Set<string> | null;
  nonce?: string;
  sent?: string;
  /** what was last sent, for keeping clusters until the routes stop naming them */
  sentSet?: Map<string, Encoded>;
  refused: Set<string>;
  status: TypeStatus;
}

/** Told of each ACK (true) and NACK (false) a client sends, for the metrics. */
export type OnAnswer = (kind: ResourceKind, acked: boolean) => void;

export class SotwStream implements StreamOps {
  private types = new Map<ResourceKind, SotwType>();
  revision = 0;
  constructor(private readonly send: (r: SotwResponse) => void, private readonly onAnswer: OnAnswer = () => undefined) {}

  private typeOf(kind: ResourceKind): SotwType {
    let t = this.types.get(kind);
    if (!t) this.types.set(kind, (t = { subscribed: false, names: new Set(), refused: new Set(), status: {} }));
    return t;
  }

  listenerNames = (): string[] | 'wildcard' => {
    const t = this.types.get('listener');
    const c = this.types.get('cluster');
    // every Listener or every Cluster: an Envoy (it asks for listeners only once its clusters are in)
    if ((t?.subscribed && !t.names) || (c?.subscribed && !c.names)) return 'wildcard';
    // a proxyless client's route configuration is named as its listener
    return [...new Set([...(t?.names ?? []), ...(this.types.get('route')?.names ?? [])])];
  };

  status(): Partial<Record<ResourceKind, TypeStatus>> {
    return Object.fromEntries([...this.types].map(([k, t]) => [k, t.status]));
  }

  settled(): boolean {
    return [...this.types.values()].every((t) => t.sent === undefined || (t.status.acked === t.sent && !t.status.nacked));
  }

  /** A request; returns whether the listener names changed (the caller recomputes, then calls push). */
  request(req: SotwRequest): { kind: ResourceKind; namesChanged: boolean } | null {
    const kind = kindOfTypeUrl(req.typeUrl);
    if (!kind) return null;
    const t = this.typeOf(kind);
    // an answer to a response older than the last one sent says nothing about the current one; the
    // names it carries are still the client's (gRPC clients that drop their last watch of a type
    // send no answer to the response that crosses this request, so its names would be lost)
    const stale = !!req.nonce && req.nonce !== t.nonce;
    if (stale) {
      // an answer to a response older than the last one, with the same names: nothing to do
      if (!t.subscribed || sameNames(t.names, req.names)) return null;
    } else if (req.nonce && t.sent !== undefined) {
      if (req.error !== undefined) {
        t.refused.add(t.sent);
        t.status = { ...t.status, nacked: { version: t.sent, error: req.error } };
      } else t.status = { acked: t.sent };
      this.revision++;
      this.onAnswer(kind, req.error === undefined);
    } else if (!req.nonce && req.versionInfo) {
      // a client back from another stream holds this version already
      t.sent = req.versionInfo;
      t.status = { acked: req.versionInfo };
      this.revision++;
    }
    // no names is the legacy wildcard only on the type's first request; later it unsubscribes from everything
    const wildcard = req.names.includes('*') || (req.names.length === 0 && isWildcardKind(kind) && !t.subscribed);
    const names = wildcard ? null : new Set(req.names);
    const before = t.names ? [...t.names].sort().join('\n') : '*';
    const after = names ? [...names].sort().join('\n') : '*';
    const namesChanged = !t.subscribed || before !== after;
    // a type's first request adds it to the status
    if (!t.subscribed) this.revision++;
    t.subscribed = true;
    t.names = names;
    return { kind, namesChanged };
  }

  /** Sends each kind whose content for the client's names differs from what it was sent, in ADS order. */
  pushAll(u: Universe): void {
    // clusters and endpoints the last routes may still name are kept until the routes have gone out
    for (const k of ['cluster', 'endpoint'] as const) this.push(k, u, true);
    for (const k of ['listener', 'route', 'secret'] as const) this.push(k, u, false);
    for (const k of ['cluster', 'endpoint'] as const) this.push(k, u, false);
  }

  push(kind: ResourceKind, u: Universe, keepSent: boolean): void {
    const t = this.types.get(kind);
    if (!t?.subscribed) return;
    const set = new Map<string, Encoded>();
    for (const [name, e] of u[kind]) if (!t.names || t.names.has(name)) set.set(name, e);
    if (keepSent) for (const [name, e] of t.sentSet ?? []) if (!set.has(name) && (!t.names || t.names.has(name))) set.set(name, e);
    const sorted = [...set.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // the names asked for count too: a client asking for a name that does not exist is told so
    const version = digest([kind, t.names ? [...t.names].sort().join(',') : '*', ...sorted.map((e) => `${e.name}\t${e.version}`)]);
    if (version === t.sent || t.refused.has(version)) return;
    t.sent = version;
    t.sentSet = set;
    t.nonce = nextNonce();
    this.send({ version_info: version, type_url: TYPE_URL[kind], nonce: t.nonce, resources: sorted.map((e) => ({ type_url: TYPE_URL[kind], value: e.bytes })) });
  }
}

// ---------------------------------------------------------------- incremental

export interface DeltaRequest extends Request { subscribe: string[]; unsubscribe: string[]; initial: Record<string, string> }
export interface DeltaResponse {
  system_version_info: string;
  resources: { name: string; version: string; resource: { type_url: string; value: Uint8Array } }[];
  removed_resources: string[];
  type_url: string;
  nonce: string;
}

interface DeltaType {
  wildcard: boolean;
  names: Set<string>;
  /** what the client holds (or was sent), by name: version */
  has: Map<string, string>;
  /** names the client was told do not exist */
  toldMissing: Set<string>;
  /** responses awaiting an answer: nonce -> what they sent */
  pending: Map<string, Map<string, string>>;
  refused: Map<string, Set<string>>;
  status: TypeStatus;
  started: boolean;
  /** the signature of what the last push of this type (with removals) worked from, and whether the subscription changed since */
  pushedSig?: string;
  changed: boolean;
}

export class DeltaStream implements StreamOps {
  private types = new Map<ResourceKind, DeltaType>();
  revision = 0;
  constructor(private readonly send: (r: DeltaResponse) => void, private readonly onAnswer: OnAnswer = () => undefined) {}

  private typeOf(kind: ResourceKind): DeltaType {
    let t = this.types.get(kind);
    if (!t) {
      this.types.set(kind, (t = { wildcard: false, names: new Set(), has: new Map(), toldMissing: new Set(), pending: new Map(), refused: new Map(), status: {}, started: false, changed: true }));
      this.revision++;
    }
    return t;
  }

  private names?: string[] | 'wildcard';
  listenerNames = (): string[] | 'wildcard' => {
    if (this.names) return this.names;
    const t = this.types.get('listener');
    const c = this.types.get('cluster');
    if ((t?.started && t.wildcard) || (c?.started && c.wildcard)) return (this.names = 'wildcard');
    return (this.names = [...new Set([...(t?.names ?? []), ...(this.types.get('route')?.names ?? [])])]);
  };

  status(): Partial<Record<ResourceKind, TypeStatus>> {
    return Object.fromEntries([...this.types].map(([k, t]) => [k, t.status]));
  }

  settled(): boolean {
    return [...this.types.values()].every((t) => t.pending.size === 0 && !t.status.nacked);
  }

  request(req: DeltaRequest): { kind: ResourceKind; namesChanged: boolean } | null {
    const kind = kindOfTypeUrl(req.typeUrl);
    if (!kind) return null;
    const t = this.typeOf(kind);
    let namesChanged = false;
    if (!t.started) {
      t.started = true;
      namesChanged = true;
      // the first request of a type without names subscribes to everything (the legacy wildcard)
      if (req.subscribe.length === 0 && isWildcardKind(kind)) t.wildcard = true;
      for (const [name, v] of Object.entries(req.initial)) t.has.set(name, v);
    }
    if (req.nonce) {
      const sent = t.pending.get(req.nonce);
      if (sent) {
        t.pending.delete(req.nonce);
        const summary = digest([...sent].map(([n, v]) => `${n}\t${v}`));
        if (req.error !== undefined) {
          for (const [name, v] of sent) {
            let set = t.refused.get(name);
            if (!set) t.refused.set(name, (set = new Set()));
            set.add(v);
          }
          t.status = { ...t.status, nacked: { version: summary, error: req.error } };
        } else t.status = { acked: summary };
        this.revision++;
        this.onAnswer(kind, req.error === undefined);
      }
    }
    for (const n of req.subscribe) {
      if (n === '*') t.wildcard = true;
      else if (!t.names.has(n)) t.names.add(n);
      namesChanged = true;
    }
    for (const n of req.unsubscribe) {
      if (n === '*') t.wildcard = false;
      t.names.delete(n);
      t.has.delete(n);
      t.toldMissing.delete(n);
      namesChanged = true;
    }
    if (namesChanged) {
      t.changed = true;
      this.names = undefined;
    }
    return { kind, namesChanged };
  }

  pushAll(u: Universe): void {
    for (const k of ['cluster', 'endpoint'] as const) this.push(k, u, false);
    for (const k of ['listener', 'route', 'secret'] as const) this.push(k, u, true);
    for (const k of ['cluster', 'endpoint'] as const) this.push(k, u, true);
  }

  /** Sends what changed for `kind`; removals of what the client holds only when `removals` (after the routes that named them). */
  push(kind: ResourceKind, u: Universe, removals: boolean): void {
    const t = this.types.get(kind);
    if (!t?.started) return;
    // the same resources as the last push worked from, and the same subscription: nothing to send
    const sig = signatureOf(u, kind);
    if (!t.changed && t.pushedSig === sig) return;
    if (removals) {
      t.pushedSig = sig;
      t.changed = false;
    }
    const wanted = (name: string) => t.wildcard || t.names.has(name);
    const resources: DeltaResponse['resources'] = [];
    const sent = new Map<string, string>();
    for (const [name, e] of u[kind]) {
      if (!wanted(name) || t.has.get(name) === e.version || t.refused.get(name)?.has(e.version)) continue;
      resources.push({ name, version: e.version, resource: { type_url: TYPE_URL[kind], value: e.bytes } });
      sent.set(name, e.version);
    }
    const removed: string[] = [];
    if (removals) for (const name of t.has.keys()) if (!u[kind].has(name)) removed.push(name);
    // a name asked for that does not exist is answered as removed, so the client need not wait
    for (const name of t.names) if (!u[kind].has(name) && !t.has.has(name) && !t.toldMissing.has(name)) removed.push(name);
    if (resources.length === 0 && removed.length === 0) return;
    for (const [name, v] of sent) {
      t.has.set(name, v);
      t.toldMissing.delete(name);
    }
    for (const name of removed) {
      t.has.delete(name);
      if (t.names.has(name)) t.toldMissing.add(name);
    }
    const nonce = nextNonce();
    t.pending.set(nonce, sent);
    // a client answers only the last nonce it saw; older pending ones are settled by it
    if (t.pending.size > 16) t.pending.delete(t.pending.keys().next().value!);
    this.send({ system_version_info: '', type_url: TYPE_URL[kind], nonce, resources: resources.sort((a, b) => (a.name < b.name ? -1 : 1)), removed_resources: removed.sort() });
  }
}
