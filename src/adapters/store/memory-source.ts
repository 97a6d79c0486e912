// An object source over objects held in memory, indexed as the worker's object cache indexes the
// log, so that tests (the golden cases) load a Gateway's world with the production loader instead
// of assembling one of their own. Secrets carry their data in the object itself here.
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

function add(index: Map<string, string[]>, key: string, stream: string): void {
  const list = index.get(key);
  if (list) list.push(stream);
  else index.set(key, [stream]);
}

export const streamOf = (o: K8sObject): string => streamKey(o.kind, o.metadata.namespace ?? '', o.metadata.name);

export class MemorySource implements ObjectSource {
  private readonly objects = new Map<string, K8sObject>();
  private readonly routesByGateway = new Map<string, string[]>();
  private readonly slicesByService = new Map<string, string[]>();
  private readonly byKindNamespace = new Map<string, string[]>();

  /** The objects are frozen in reading order (as the cache holds them); a later one replaces an earlier one of the same stream. */
  constructor(objects: Iterable<K8sObject>, readonly position = 0) {
    for (const o of objects) this.objects.set(streamOf(o), deepFreeze(inReadingOrder(o)));
    // in stream order, as the cache answers, so that the world does not depend on the order of the input
    for (const stream of [...this.objects.keys()].sort()) {
      const obj = this.objects.get(stream)!;
      const ns = obj.metadata.namespace ?? '';
      if (isRouteKind(obj.kind)) for (const g of gatewaysNamedBy(obj)) add(this.routesByGateway, g, stream);
      const svc = obj.kind === 'EndpointSlice' ? obj.metadata.labels?.[SERVICE_NAME_LABEL] : undefined;
      if (svc) add(this.slicesByService, `${ns}/${svc}`, stream);
      add(this.byKindNamespace, `${obj.kind}/${ns}`, stream);
    }
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
    const streams: string[] = [];
    for (const [key, list] of this.byKindNamespace) if (key.startsWith(`${kind}/`)) streams.push(...list);
    return this.pick(streams.sort());
  }

  async secretData(secrets: K8sObject[]): Promise<Map<string, Record<string, string>>> {
    return new Map(secrets.map((s) => [streamOf(s), (this.objects.get(streamOf(s)) as { data?: Record<string, string> } | undefined)?.data ?? {}]));
  }

  /** every object held, in stream order */
  all(): K8sObject[] {
    return [...this.objects.keys()].sort().map((s) => this.objects.get(s)!);
  }

  private pick(streams: readonly string[] | undefined): K8sObject[] {
    return streams ? streams.map((s) => this.objects.get(s)!) : [];
  }
}
