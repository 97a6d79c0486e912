// One Service and its EndpointSlices as a follower of the event log holds them: read once from the
// objects, then kept current by the log's events. An event older than what is held (the read saw
// the object already) changes nothing, so replaying the log from before the read converges without
// ever stepping back.
import type { EndpointSlice, K8sObject, Service } from '../model/objects';
import { SERVICE_NAME_LABEL } from '../refs/lookup';

interface Held<T> { version: number; object: T | null }

export interface ServiceView {
  namespace: string;
  name: string;
  service: Held<Service>;
  /** by slice name: the slices labelled with this Service, and tombstones of those that were */
  slices: Map<string, Held<EndpointSlice>>;
}

export interface ViewEvent {
  kind: string;
  namespace: string;
  name: string;
  version: number;
  deleted: boolean;
  object: K8sObject;
}

export function newView(namespace: string, name: string): ServiceView {
  return { namespace, name, service: { version: 0, object: null }, slices: new Map() };
}

/** Applies one event (a row of the objects table is one too); true when the view changed. */
export function applyToView(view: ServiceView, ev: ViewEvent): boolean {
  if (ev.namespace !== view.namespace) return false;
  if (ev.kind === 'Service') {
    if (ev.name !== view.name || ev.version <= view.service.version) return false;
    view.service = { version: ev.version, object: ev.deleted ? null : (ev.object as Service) };
    return true;
  }
  if (ev.kind !== 'EndpointSlice') return false;
  const held = view.slices.get(ev.name);
  if (held && ev.version <= held.version) return false;
  const labelled = !ev.deleted && ev.object.metadata?.labels?.[SERVICE_NAME_LABEL] === view.name;
  if (!labelled && !held?.object) {
    // not ours, and not ours before: only its version is worth keeping, if we knew it
    if (held) held.version = ev.version;
    return false;
  }
  view.slices.set(ev.name, { version: ev.version, object: labelled ? (ev.object as EndpointSlice) : null });
  return true;
}

export function slicesOf(view: ServiceView): EndpointSlice[] {
  const out: EndpointSlice[] = [];
  for (const [, s] of [...view.slices].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) if (s.object) out.push(s.object);
  return out;
}
