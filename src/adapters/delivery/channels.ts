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
  /** the delta to it from an earlier version (openapi/schemas/snapshot-delta.yaml), when the worker had that version */
  delta?: { from: number; text: string };
}

export const SNAPSHOT_CHANNEL = 'snapshots';

// A notice carries its body when that is small enough for pub/sub, so that an API process
// delivering it need not read it back from PostgreSQL: a line of JSON, then the body. With a
// delta (`deltaFrom` in the head) the delta's line comes before the body (JSON text holds no raw
// newline, so the lines split cleanly).
const NOTICE_BODY_LIMIT = 1 << 20;

export function snapshotNotice(gateway: string, version: number | null, body?: string, delta?: { from: number; text: string }): string {
  const withDelta = delta !== undefined && version !== null && delta.text.length <= NOTICE_BODY_LIMIT;
  const head = JSON.stringify({ gateway, version, ...(withDelta ? { deltaFrom: delta.from } : {}) });
  const lines = withDelta ? `${head}\n${delta.text}` : head;
  return body !== undefined && version !== null && body.length <= NOTICE_BODY_LIMIT ? `${lines}\n${body}` : lines;
}

function readSnapshotNotice(text: string): SnapshotNotice | undefined {
  if (text === '') return undefined;
  const nl = text.indexOf('\n');
  const head = JSON.parse(nl < 0 ? text : text.slice(0, nl)) as { gateway?: unknown; version?: unknown; deltaFrom?: unknown };
  if (typeof head.gateway !== 'string' || (head.version !== null && typeof head.version !== 'number')) throw new Error('not a snapshot notice');
  const notice: SnapshotNotice = { gateway: head.gateway, version: head.version };
  if (nl < 0) return notice;
  let rest = text.slice(nl + 1);
  if (typeof head.deltaFrom === 'number') {
    const end = rest.indexOf('\n');
    notice.delta = { from: head.deltaFrom, text: end < 0 ? rest : rest.slice(0, end) };
    if (end < 0) return notice;
    rest = rest.slice(end + 1);
  }
  return { ...notice, body: rest };
}

export const snapshotChannel: Channel<SnapshotNotice> = {
  name: SNAPSHOT_CHANNEL,
  encode: (m) => snapshotNotice(m.gateway, m.version, m.body, m.delta),
  decode: readSnapshotNotice,
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
