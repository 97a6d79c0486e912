// The rules of writing one object: preconditions, versions, generation, and "nothing changed".
// Pure: the caller supplies the current projection row, the clock and a fresh uid.
import { canonicalJson } from './canonical';
import type { K8sObject } from '../model/objects';

export type EventType = 'Created' | 'Updated' | 'Deleted';

export interface CurrentState {
  version: number;
  deleted: boolean;
  object: K8sObject;
}

export type WriteMode = 'create' | 'replace' | 'patch';

export type Decision =
  | { outcome: 'unchanged'; object: K8sObject }
  | { outcome: 'append'; type: EventType; expectedVersion: number; object: K8sObject }
  | { outcome: 'reject'; status: 404 | 409; reason: 'NotFound' | 'AlreadyExists' | 'Conflict'; message: string };

const SERVER_META = ['uid', 'resourceVersion', 'generation', 'creationTimestamp'] as const;

/** What a write may change and "unchanged" compares: everything but apiVersion, kind, metadata and status. */
export function contentOf(obj: K8sObject): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata: _m, status: _s, ...content } = obj;
  return content;
}

/** Field ownership counts as a change (a migration of managers is one), its timestamps and order do not. */
function managers(obj: K8sObject): string[] {
  const mf = obj.metadata?.managedFields;
  if (!Array.isArray(mf)) return [];
  return mf.map((m) => canonicalJson(m && typeof m === 'object' ? { ...(m as Record<string, unknown>), time: undefined } : m)).sort();
}

function labelsAndAnnotations(obj: K8sObject) {
  return { labels: obj.metadata?.labels ?? {}, annotations: obj.metadata?.annotations ?? {}, managedFields: managers(obj) };
}

export function isUnchanged(current: K8sObject, incoming: K8sObject): boolean {
  return (
    canonicalJson(contentOf(current)) === canonicalJson(contentOf(incoming)) &&
    canonicalJson(labelsAndAnnotations(current)) === canonicalJson(labelsAndAnnotations(incoming))
  );
}

function stored(
  incoming: K8sObject,
  meta: { uid: string; version: number; generation: number; creationTimestamp: string },
): K8sObject {
  const { metadata } = incoming;
  const m: K8sObject['metadata'] = { name: metadata.name };
  if (metadata.namespace) m.namespace = metadata.namespace;
  m.uid = meta.uid;
  m.resourceVersion = String(meta.version);
  m.generation = meta.generation;
  m.creationTimestamp = meta.creationTimestamp;
  if (metadata.labels && Object.keys(metadata.labels).length) m.labels = metadata.labels;
  if (metadata.annotations && Object.keys(metadata.annotations).length) m.annotations = metadata.annotations;
  // server-side apply's field ownership (the Kubernetes paths keep it; "unchanged" does not compare it)
  if (Array.isArray(metadata.managedFields) && metadata.managedFields.length) m.managedFields = metadata.managedFields;
  return { apiVersion: incoming.apiVersion, kind: incoming.kind, metadata: m, ...contentOf(incoming) };
}

export function decideWrite(args: {
  current: CurrentState | null;
  incoming: K8sObject;
  mode: WriteMode;
  precondition?: string;
  now: string;
  newUid: string;
}): Decision {
  const { current, incoming, mode, precondition, now, newUid } = args;
  const live = current && !current.deleted ? current : null;
  const what = `${incoming.kind} "${incoming.metadata.name}"`;

  if (!live) {
    if (mode === 'patch') return { outcome: 'reject', status: 404, reason: 'NotFound', message: `${what} not found` };
    if (precondition !== undefined)
      return {
        outcome: 'reject', status: 409, reason: 'Conflict',
        message: `${what} does not exist, so resourceVersion ${precondition} cannot match`,
      };
    const version = (current?.version ?? 0) + 1;
    return {
      outcome: 'append', type: 'Created', expectedVersion: current?.version ?? 0,
      object: stored(incoming, { uid: newUid, version, generation: 1, creationTimestamp: now }),
    };
  }

  if (mode === 'create')
    return { outcome: 'reject', status: 409, reason: 'AlreadyExists', message: `${what} already exists` };
  if (precondition !== undefined && precondition !== String(live.version))
    return {
      outcome: 'reject', status: 409, reason: 'Conflict',
      message: `${what} has been modified: resourceVersion is ${live.version}, the request expected ${precondition}`,
    };
  if (isUnchanged(live.object, incoming)) return { outcome: 'unchanged', object: live.object };

  const specChanged = canonicalJson(contentOf(live.object)) !== canonicalJson(contentOf(incoming));
  const prev = live.object.metadata;
  return {
    outcome: 'append', type: 'Updated', expectedVersion: live.version,
    object: stored(incoming, {
      uid: prev.uid!,
      version: live.version + 1,
      generation: (prev.generation ?? 1) + (specChanged ? 1 : 0),
      creationTimestamp: prev.creationTimestamp!,
    }),
  };
}

export function decideDelete(args: { current: CurrentState | null; kind: string; name: string; precondition?: string }): Decision {
  const { current, precondition } = args;
  const what = `${args.kind} "${args.name}"`;
  if (!current || current.deleted) return { outcome: 'reject', status: 404, reason: 'NotFound', message: `${what} not found` };
  if (precondition !== undefined && precondition !== String(current.version))
    return {
      outcome: 'reject', status: 409, reason: 'Conflict',
      message: `${what} has been modified: resourceVersion is ${current.version}, the request expected ${precondition}`,
    };
  const object = structuredClone(current.object);
  object.metadata.resourceVersion = String(current.version + 1);
  return { outcome: 'append', type: 'Deleted', expectedVersion: current.version, object };
}

/** Server-set metadata a client may send back (it is ignored, never stored from the client). */
export function stripServerFields(obj: K8sObject): K8sObject {
  const metadata = { ...obj.metadata };
  for (const f of SERVER_META) delete (metadata as Record<string, unknown>)[f];
  const { status: _s, ...rest } = obj;
  return { ...rest, metadata };
}
