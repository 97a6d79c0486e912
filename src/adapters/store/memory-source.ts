// An object source over objects held in memory, indexed as the worker's object cache indexes the
// log, so that tests (the golden cases) load a Gateway's world with the production loader instead
// of assembling one of their own. As in the cache, objects are frozen, in reading order, and an
// object stays the same value until it is replaced. Secrets carry their data in the object here.
import type { ListAt } from '../../core/model/chunked-list';
import { streamKey } from '../../core/objects/keys';
import { IndexedObjects } from './indexed-objects';
import type { K8sObject } from '../../core/model/objects';
import type { ObjectSource } from './world-loader';

export const streamOf = (o: Pick<K8sObject, 'kind' | 'metadata'>): string => streamKey(o.kind, o.metadata.namespace ?? '', o.metadata.name);

export class MemorySource implements ObjectSource {
  /** one more for every put or delete */
  position = 0;
  private readonly objects = new IndexedObjects();

  constructor(objects: Iterable<K8sObject> = []) {
    for (const o of objects) this.put(o);
  }

  /** Holds a frozen copy of `o` in place of its stream's object; answers the copy. */
  put(o: K8sObject): K8sObject {
    this.position++;
    return this.objects.set(streamOf(o), structuredClone(o));
  }

  delete(stream: string): void {
    this.position++;
    this.objects.delete(stream);
  }

  get(stream: string): K8sObject | undefined {
    return this.objects.get(stream);
  }

  routesNaming(ns: string, name: string, parentKind: 'Gateway' | 'ListenerSet' = 'Gateway'): ListAt<K8sObject> {
    return this.objects.routesNaming(ns, name, parentKind);
  }

  listenerSetsNaming(ns: string, name: string): K8sObject[] {
    return this.objects.listenerSetsNaming(ns, name);
  }

  slicesOf(ns: string, service: string): K8sObject[] {
    return this.objects.slicesOf(ns, service);
  }

  ofKind(kind: string, ns?: string): K8sObject[] {
    return this.objects.ofKind(kind, ns);
  }

  async secretData(secrets: K8sObject[]): Promise<Map<string, Record<string, string>>> {
    return new Map(secrets.map((s) => [streamOf(s), (this.objects.get(streamOf(s)) as { data?: Record<string, string> } | undefined)?.data ?? {}]));
  }

  /** every object held, in stream order */
  all(): K8sObject[] {
    return this.objects.all();
  }
}
