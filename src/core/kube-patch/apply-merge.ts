// The two value operations of server-side apply: merging an applied configuration into the live
// object along the kind's schema, and removing the fields an applier stopped applying.
import type { FieldPath } from './field-set';
import { canonical, findKeyed } from './inventory';
import { clone, define, has, isObject, type JsonObject } from './json';
import { fieldOf, itemsOf, listTypeOf, type FieldSchema } from './schema';

export function mergeApplied(live: unknown, applied: unknown, s: FieldSchema): unknown {
  if (isObject(applied) && !s.atomic && !s.list) {
    const out: JsonObject = isObject(live) ? clone(live) : {};
    for (const k of Object.keys(applied)) define(out, k, mergeApplied(has(out, k) ? out[k] : undefined, applied[k], fieldOf(s, k)));
    return out;
  }
  if (Array.isArray(applied) && Array.isArray(live) && listTypeOf(s) !== 'atomic') return mergeList(live, applied, s);
  return clone(applied);
}

// The order kube-apiserver gives a merged list: the items both lists hold come in the applied
// order, an item only the live list holds stays where it was, and an item only the applied list
// holds comes where the applied list puts it.
function mergeList(live: unknown[], applied: unknown[], s: FieldSchema): unknown[] {
  const type = listTypeOf(s);
  const id = (v: unknown): string => {
    if (type === 'set' || !isObject(v)) return canonical(v);
    const keys: JsonObject = {};
    for (const k of s.list!.keys!) keys[k] = has(v, k) ? v[k] : s.list!.keyDefaults?.[k];
    return canonical(keys);
  };
  const liveIds = live.map(id);
  const appliedIds = applied.map(id);
  const liveById = new Map(live.map((v, i) => [liveIds[i], v]));
  const appliedSet = new Set(appliedIds);
  const shared = appliedIds.filter((x) => liveById.has(x));
  let nextShared = 0;
  const out: unknown[] = [];
  const emit = (r: number): void => {
    out.push(type === 'map' ? mergeApplied(liveById.get(appliedIds[r]), applied[r], itemsOf(s)) : clone(applied[r]));
    if (shared[nextShared] === appliedIds[r]) nextShared++;
  };
  let l = 0;
  let r = 0;
  while (l < live.length || r < applied.length) {
    if (l < live.length && r < applied.length) {
      if (liveIds[l] === appliedIds[r]) {
        emit(r);
        l++;
        r++;
        continue;
      }
      // a shared item that comes later in the applied order is taken when the applied list reaches it
      if (appliedSet.has(liveIds[l]) && nextShared < shared.length && shared[nextShared] !== liveIds[l]) {
        l++;
        continue;
      }
    }
    if (l < live.length && !appliedSet.has(liveIds[l])) {
      out.push(clone(live[l]));
      l++;
      continue;
    }
    if (r < applied.length) {
      emit(r);
      r++;
    } else l++;
  }
  return out;
}

/** Removes the value at a field path, if it is there. */
export function removePath(obj: unknown, path: FieldPath, s: FieldSchema): void {
  let container: unknown = obj;
  let schema = s;
  for (let n = 0; n < path.length; n++) {
    const e = path[n];
    const last = n === path.length - 1;
    const body = e.slice(2);
    let next: unknown;
    let nextSchema: FieldSchema;
    if (e[0] === 'f') {
      if (!isObject(container) || !has(container, body)) return;
      if (last) {
        delete container[body];
        return;
      }
      next = container[body];
      nextSchema = fieldOf(schema, body);
    } else if (e[0] === 'k' || e[0] === 'v') {
      if (!Array.isArray(container)) return;
      const at = e[0] === 'k'
        ? findKeyed(container, JSON.parse(body) as JsonObject, schema)
        : container.findIndex((v) => canonical(v) === canonical(JSON.parse(body)));
      if (at < 0) return;
      if (last) {
        container.splice(at, 1);
        return;
      }
      next = container[at];
      nextSchema = itemsOf(schema);
    } else return;
    container = next;
    schema = nextSchema;
  }
}
