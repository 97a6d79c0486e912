// An object source over objects held in memory, indexed as the worker's object cache indexes the
// log, so that tests (the golden cases) load a Gateway's world with the production loader instead
// of assembling one of their own. As in the cache, objects are frozen, in reading order, and an
// object stays the same value until it is replaced. Secrets carry their data in the object here.
import { inReadingOrder } from '../../core/objects/order';
import { streamKey } from '../../core/objects/keys';
import { isRouteKind } from '../../core/model/kinds';
import { SERVICE_NAME_LABEL, gatewaysNamedBy } from '../../core/refs/lookup';
import type { K8sObject } from '../../core/model/objects';
import type { ObjectSource } from './world-loader';

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

function addTo(index: Map<string, Set<string>>, key: string, stream: string): void {
  let s = index.get(key);
  if (!s) index.set(key, (s = new Set()));
  s.add(stream);
}

function removeFrom(index: Map<string, Set<string>>, key: string, stream: string): void {
  const s = index.get(key);
  if (!s) return;
  s.delete(stream);
  if (s.size === 0) index.delete(key);
}

export const streamOf = (o: Pick<K8sObject, 'kind' | 'metadata'>): string => streamKey(o.kind, o.metadata.namespace ?? '', o.metadata.name);

export class MemorySource implements ObjectSource {
  /** one more for every put or delete */
  position = 0;
  private readonly objects = new Map<string, K8sObject>();
  private readonly routesByGateway = new Map<string, Set<string>>();
  private readonly slicesByService = new Map<string, Set<string>>();
  private readonly byKindNamespace = new Map<string, Set<string>>();

  constructor(objects: Iterable<K8sObject> = []) {
    for (const o of objects) this.put(o);
  }

  /** Holds `o` (a frozen copy in reading order) in place of its stream's object; answers the copy. */
  put(o: K8sObject): K8sObject {
    const stream = streamOf(o);
    this.delete(stream);
    const obj = deepFreeze(inReadingOrder(structuredClone(o)));
    this.objects.set(stream, obj);
    this.index(stream, obj, addTo);
    return obj;
  }

  delete(stream: string): void {
    this.position++;
    const old = this.objects.get(stream);
    if (!old) return;
    this.objects.delete(stream);
    this.index(stream, old, removeFrom);
  }

  get(stream: string): K8sObject | undefined {
    return this.objects.get(stream);
  }

  routesNaming(ns: string, name: string): K8sObject[] {
    return this.pick(this.routesByGateway.get(`${ns}/${name}`));
  }

  slicesOf(ns: string, service: string): K8sObject[] {
    return this.pick(this.slicesByService.get(`${ns}/${service}`));
  }

  ofKind(kind: string, ns?: string): K8sObject[] {
    if (ns !== undefined) return this.pick(this.byKindNamespace.get(`${kind}/${ns}`));
    const out: K8sObject[] = [];
    for (const [key, streams] of this.byKindNamespace) if (key.startsWith(`${kind}/`)) out.push(...this.pick(streams));
    return out;
  }

  async secretData(secrets: K8sObject[]): Promise<Map<string, Record<string, string>>> {
    return new Map(secrets.map((s) => [streamOf(s), (this.objects.get(streamOf(s)) as { data?: Record<string, string> } | undefined)?.data ?? {}]));
  }

  /** every object held, in stream order */
  all(): K8sObject[] {
    return this.pick(new Set(this.objects.keys()));
  }

  private pick(streams: Set<string> | undefined): K8sObject[] {
    if (!streams) return [];
    // in stream order, as the cache answers, so that the world does not depend on the order of writes
    return [...streams].sort().map((s) => this.objects.get(s)!);
  }

  private index(stream: string, obj: K8sObject, op: typeof addTo): void {
    const ns = obj.metadata.namespace ?? '';
    if (isRouteKind(obj.kind)) for (const g of gatewaysNamedBy(obj)) op(this.routesByGateway, g, stream);
    const svc = obj.kind === 'EndpointSlice' ? obj.metadata.labels?.[SERVICE_NAME_LABEL] : undefined;
    if (svc) op(this.slicesByService, `${ns}/${svc}`, stream);
    op(this.byKindNamespace, `${obj.kind}/${ns}`, stream);
  }
}
