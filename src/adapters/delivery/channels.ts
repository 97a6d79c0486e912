// Every bus channel and the shape of its messages, in one place: publishers and subscribers in the
// API, the worker and the delivery hub all speak through these. A message is a hint (readers
// re-read the store); the empty message is the bus's wake-up after a reconnect, when notices may
// have been lost, and every decoder answers it with `undefined`.
import type { Bus } from './bus';

export interface Channel<M> {
  readonly name: string;
  encode(message: M): string;
  /** undefined: a wake-up, to be treated as "re-read"; throws on a message it cannot read */
  decode(text: string): M | undefined;
}

/** The log grew: the highest position appended, where the writer knows it. */
export const EVENTS_CHANNEL = 'events';
export const eventsChannel: Channel<{ position?: number }> = {
  name: EVENTS_CHANNEL,
  encode: (m) => (m.position === undefined ? '' : String(m.position)),
  decode: (text) => {
    const position = text === '' ? NaN : Number(text);
    return Number.isFinite(position) ? { position } : undefined;
  },
};

/** A recompute finished: the reconcile job key it served (see adapters/queue/job-keys.ts). */
export const RECONCILED_CHANNEL = 'reconciled';
export const reconciledChannel: Channel<{ key: string }> = {
  name: RECONCILED_CHANNEL,
  encode: (m) => m.key,
  decode: (text) => (text === '' ? undefined : { key: text }),
};

/** A Gateway has a new snapshot ("ns/name", version; null when it has none any more). */
export interface SnapshotNotice {
  gateway: string;
  version: number | null;
  /** the new body, when it is small enough to travel on the bus */
  body?: string;
}

export const SNAPSHOT_CHANNEL = 'snapshots';

// A notice carries its body when that is small enough for pub/sub, so that an API process
// delivering it need not read it back from PostgreSQL: a line of JSON, then the body.
export const NOTICE_BODY_LIMIT = 1 << 20;

export function snapshotNotice(gateway: string, version: number | null, body?: string): string {
  const head = JSON.stringify({ gateway, version });
  return body !== undefined && version !== null && body.length <= NOTICE_BODY_LIMIT ? `${head}\n${body}` : head;
}

function readSnapshotNotice(text: string): SnapshotNotice | undefined {
  if (text === '') return undefined;
  const nl = text.indexOf('\n');
  const head = JSON.parse(nl < 0 ? text : text.slice(0, nl)) as { gateway?: unknown; version?: unknown };
  if (typeof head.gateway !== 'string' || (head.version !== null && typeof head.version !== 'number')) throw new Error('not a snapshot notice');
  const notice: SnapshotNotice = { gateway: head.gateway, version: head.version };
  return nl < 0 ? notice : { ...notice, body: text.slice(nl + 1) };
}

export const snapshotChannel: Channel<SnapshotNotice> = {
  name: SNAPSHOT_CHANNEL,
  encode: (m) => snapshotNotice(m.gateway, m.version, m.body),
  decode: readSnapshotNotice,
};

/**
 * A worker's delta from an earlier version of a Gateway's snapshot to the one it just wrote
 * (openapi/schemas/snapshot-delta.yaml): a line of JSON, then the delta. It has a channel of its
 * own, published just before the snapshot's notice, so that an API process that does not know it
 * (during a rolling upgrade) never takes it for part of a body.
 */
export interface SnapshotDeltaNotice {
  gateway: string;
  from: number;
  to: number;
  text: string;
}

export const SNAPSHOT_DELTA_CHANNEL = 'snapshot-deltas';

export const snapshotDeltaChannel: Channel<SnapshotDeltaNotice> = {
  name: SNAPSHOT_DELTA_CHANNEL,
  encode: (m) => `${JSON.stringify({ gateway: m.gateway, from: m.from, to: m.to })}\n${m.text}`,
  decode: (text) => {
    if (text === '') return undefined;
    const nl = text.indexOf('\n');
    const head = JSON.parse(nl < 0 ? text : text.slice(0, nl)) as { gateway?: unknown; from?: unknown; to?: unknown };
    if (nl < 0 || typeof head.gateway !== 'string' || typeof head.from !== 'number' || typeof head.to !== 'number') throw new Error('not a snapshot delta notice');
    return { gateway: head.gateway, from: head.from, to: head.to, text: text.slice(nl + 1) };
  },
};

/** Deltas larger than this are not sent on the bus (the API makes them itself when asked). */
export const DELTA_NOTICE_LIMIT = NOTICE_BODY_LIMIT;

/** A mesh table's new version for the clients of a namespace, with its snapshot body when it is small enough. */
export interface MeshSnapshotNotice {
  namespace: string;
  version: number;
  body?: string;
}

export const MESH_SNAPSHOT_CHANNEL = 'mesh-snapshots';

export const meshSnapshotChannel: Channel<MeshSnapshotNotice> = {
  name: MESH_SNAPSHOT_CHANNEL,
  encode: (m) => `${JSON.stringify({ namespace: m.namespace, version: m.version })}\n${m.body ?? ''}`,
  decode: (text) => {
    const nl = text.indexOf('\n');
    const head = JSON.parse(nl < 0 ? text : text.slice(0, nl)) as { namespace?: unknown; version?: unknown };
    if (typeof head.namespace !== 'string' || typeof head.version !== 'number') throw new Error('not a mesh snapshot notice');
    const body = nl < 0 ? '' : text.slice(nl + 1);
    return { namespace: head.namespace, version: head.version, ...(body ? { body } : {}) };
  },
};

export function publish<M>(bus: Bus, channel: Channel<M>, message: M): void {
  bus.publish(channel.name, channel.encode(message));
}

/** A message that cannot be read is dropped (the readers' polls cover it), never thrown into the bus. */
export function subscribe<M>(bus: Bus, channel: Channel<M>, handler: (message: M | undefined) => void): () => void {
  return bus.subscribe(channel.name, (text) => {
    let message: M | undefined;
    try {
      message = channel.decode(text);
    } catch {
      return;
    }
    handler(message);
  });
}
