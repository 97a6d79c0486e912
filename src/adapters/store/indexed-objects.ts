// Objects by stream, indexed the ways the world loader asks for them: the routes naming a Gateway
// or a ListenerSet, the ListenerSets naming a Gateway, the EndpointSlices of a Service, the objects of a kind in a namespace. Objects are frozen, in
// reading order, and stay the same value until replaced (the core's memos rely on it). The worker's
// object cache and the in-memory source of the golden cases both keep their objects here.
import { inReadingOrder } from '../../core/objects/order';
import { isRouteKind } from '../../core/model/kinds';
import { SERVICE_NAME_LABEL, cmp, gatewayOfListenerSet, gatewaysNamedBy, parentsNamedBy } from '../../core/refs/lookup';
import type { K8sObject } from '../../core/model/objects';
import { findSorted, patchSorted } from '../../core/model/sorted';
import { noteReplaced } from '../../core/model/replaced-items';
import { ChunkedList, type ListAt } from '../../core/model/chunked-list';

// A short string held once however many objects hold it: each object read from the store has its
// own copies of "HTTPRoute", "PathPrefix", its namespace, its Gateway's name, and the like (a
// Gateway of 50,000 routes holds each some 50,000 times). The strings seen are kept in two
// generations of a bounded size: one seen again moves to the current one, so the common ones stay
// and one no object holds any more is let go within two generations.
const INTERNED_LENGTH = 64;
const GENERATION = 1 << 16;
let current = new Map<string, string>();
let previous = new Map<string, string>();
function interned(s: string): string {
  if (s.length > INTERNED_LENGTH) return s;
  let held = current.get(s);
  if (held !== undefined) return held;
  held = previous.get(s) ?? s;
  if (current.size >= GENERATION) {
    previous = current;
    current = new Map();
  }
  current.set(held, held);
  return held;
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) if (typeof o[k] === 'string') o[k] = interned(o[k] as string);
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

// each index entry's streams in order and their objects, made when first asked for (a Gateway's
// thousands of routes are listed on every recompute of it): an object replaced by a new version
// keeps its entries, and only the replaced ones are looked up again; streams added since are put
// in their places (a burst adds hundreds between two recomputes, and sorting 5,000 streams again
// for each took a twentieth of a recompute); a stream gone makes the entry anew
interface Picked { sorted: string[]; objects: ListAt<K8sObject>; replaced: string[]; added: string[] }
const PICKED = new WeakMap<Set<string>, Picked>();

function addTo(index: Map<string, Set<string>>, key: string, stream: string): void {
  let s = index.get(key);
  if (!s) index.set(key, (s = new Set()));
  if (s.has(stream)) return;
  s.add(stream);
  const last = PICKED.get(s);
  // an entry that grew by more than half since it was picked is picked whole again
  if (last && last.added.push(stream) > last.sorted.length / 2) PICKED.delete(s);
}

function removeFrom(index: Map<string, Set<string>>, key: string, stream: string): void {
  const s = index.get(key);
  if (!s) return;
  if (s.delete(stream)) PICKED.delete(s);
  if (s.size === 0) index.delete(key);
}

type IndexOp = (index: Map<string, Set<string>>, key: string, stream: string) => void;


export class IndexedObjects {
  private readonly objects = new Map<string, K8sObject>();
  private readonly routesByGateway = new Map<string, Set<string>>();
  private readonly routesByListenerSet = new Map<string, Set<string>>();
  private readonly listenerSetsByGateway = new Map<string, Set<string>>();
  private readonly slicesByService = new Map<string, Set<string>>();
  private readonly byKindNamespace = new Map<string, Set<string>>();

  /** Holds `object` (frozen, in reading order, not copied) as its stream's object; answers it. */
  set(stream: string, object: K8sObject): K8sObject {
    const old = this.objects.get(stream);
    const obj = deepFreeze(inReadingOrder(object));
    this.objects.set(stream, obj);
    if (old) {
      // the entries both versions are in stay as they are (an object is in a handful of entries)
      const kept: [Map<string, Set<string>>, string][] = [];
      this.index(stream, obj, (index, key) => void kept.push([index, key]));
      this.index(stream, old, (index, key, st) => {
        if (!kept.some(([i, k]) => i === index && k === key)) removeFrom(index, key, st);
      });
      for (const [index, key] of kept) {
        const entry = index.get(key);
        const last = entry && PICKED.get(entry);
        // an entry nobody picks for a while is picked whole again
        if (last && last.replaced.push(stream) > last.sorted.length) PICKED.delete(entry);
      }
    }
    this.index(stream, obj, addTo);
    return obj;
  }

  delete(stream: string): void {
    const old = this.objects.get(stream);
    if (!old) return;
    this.objects.delete(stream);
    this.index(stream, old, removeFrom);
  }

  get(stream: string): K8sObject | undefined {
    return this.objects.get(stream);
  }

  /** the routes (any kind) whose parentRefs name Gateway (or ListenerSet) `ns/name` */
  routesNaming(ns: string, name: string, parentKind: 'Gateway' | 'ListenerSet' = 'Gateway'): ListAt<K8sObject> {
    // in chunks: a Gateway's 50,000 routes are not copied whole for each one written
    return this.pickChunked((parentKind === 'Gateway' ? this.routesByGateway : this.routesByListenerSet).get(`${ns}/${name}`));
  }

  /** the ListenerSets whose parentRef names Gateway `ns/name` */
  listenerSetsNaming(ns: string, name: string): K8sObject[] {
    return this.pick(this.listenerSetsByGateway.get(`${ns}/${name}`));
  }

  /** the EndpointSlices labelled for Service `ns/name` */
  slicesOf(ns: string, service: string): K8sObject[] {
    return this.pick(this.slicesByService.get(`${ns}/${service}`));
  }

  /** every object of a kind in a namespace ('' for cluster-scoped kinds), or in all of them */
  ofKind(kind: string, ns?: string): K8sObject[] {
    if (ns !== undefined) return this.pick(this.byKindNamespace.get(`${kind}/${ns}`));
    const out: K8sObject[] = [];
    for (const [key, streams] of this.byKindNamespace) if (key.startsWith(`${kind}/`)) out.push(...this.pick(streams));
    return out;
  }

  /** every object held, in stream order */
  all(): K8sObject[] {
    return [...this.objects.keys()].sort().map((s) => this.objects.get(s)!);
  }

  private pick(streams: Set<string> | undefined): K8sObject[] {
    return streams ? (this.picked(streams, false) as K8sObject[]) : [];
  }

  private pickChunked(streams: Set<string> | undefined): ListAt<K8sObject> {
    return streams ? this.picked(streams, true) : [];
  }

  private picked(streams: Set<string>, chunked: boolean): ListAt<K8sObject> {
    let last = PICKED.get(streams);
    if (!last) {
      // in stream order, so that the world does not depend on the order things were written
      const sorted = [...streams].sort(cmp);
      const objects = sorted.map((s) => this.objects.get(s)!);
      PICKED.set(streams, (last = { sorted, objects: chunked ? ChunkedList.from(objects) : objects, replaced: [], added: [] }));
    }
    if (last.added.length) {
      // sorted once, here: patchSorted's own sort then finds them in order
      const added = last.added.sort(cmp);
      const sorted = patchSorted(last.sorted, undefined, added, cmp);
      if (last.objects instanceof ChunkedList) {
        // in order: each goes where the new list has it, those before it being there already
        const edit = (last.objects as ChunkedList<K8sObject>).edit();
        for (const stream of added) edit.insert(findSorted(sorted, stream, cmp), [this.objects.get(stream)!]);
        last.objects = edit.done();
      } else last.objects = sorted.map((s) => this.objects.get(s)!);
      last.sorted = sorted;
      last.added = [];
    }
    if (last.replaced.length) {
      // a new list when an object in it was replaced: a caller may keep what it was given (the
      // merge compares it with the next), and one that is given the same list knows nothing in it
      // changed (a Gateway's 50,000 routes are not looked at for every recompute that changes none)
      const at = last.replaced.map((s) => findSorted(last!.sorted, s, cmp));
      let objects: ListAt<K8sObject>;
      if (last.objects instanceof ChunkedList) {
        const edit = (last.objects as ChunkedList<K8sObject>).edit();
        at.forEach((i, k) => edit.set(i, this.objects.get(last!.replaced[k])!));
        objects = edit.done();
      } else {
        const copy = (last.objects as K8sObject[]).slice();
        at.forEach((i, k) => (copy[i] = this.objects.get(last!.replaced[k])!));
        objects = copy;
      }
      noteReplaced(objects, last.objects, at);
      last.objects = objects;
      last.replaced = [];
    }
    return last.objects;
  }

  private index(stream: string, obj: K8sObject, op: IndexOp): void {
    const ns = obj.metadata?.namespace ?? '';
    if (isRouteKind(obj.kind)) {
      for (const g of gatewaysNamedBy(obj)) op(this.routesByGateway, g, stream);
      for (const l of parentsNamedBy(obj, 'ListenerSet')) op(this.routesByListenerSet, l, stream);
    }
    const parent = obj.kind === 'ListenerSet' ? gatewayOfListenerSet(obj) : undefined;
    if (parent) op(this.listenerSetsByGateway, parent, stream);
    const svc = obj.kind === 'EndpointSlice' ? obj.metadata?.labels?.[SERVICE_NAME_LABEL] : undefined;
    if (svc) op(this.slicesByService, `${ns}/${svc}`, stream);
    op(this.byKindNamespace, `${obj.kind}/${ns}`, stream);
  }
}
