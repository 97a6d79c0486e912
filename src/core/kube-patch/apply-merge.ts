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

// Items of both lists keep the applied order; items the live list alone has stay where they were
// relative to the others.
function mergeList(live: unknown[], applied: unknown[], s: FieldSchema): unknown[] {
  const type = listTypeOf(s);
  const id = (v: unknown): string => {
    if (type === 'set' || !isObject(v)) return canonical(v);
    const keys: JsonObject = {};
    for (const k of s.list!.keys!) keys[k] = has(v, k) ? v[k] : s.list!.keyDefaults?.[k];
    return canonical(keys);
  };
  const appliedIds = applied.map(id);
  const liveById = new Map(live.map((v) => [id(v), v]));
  const out: unknown[] = [];
  let next = 0;
  const emitUpTo = (n: number) => {
    for (; next <= n; next++) {
      const prior = liveById.get(appliedIds[next]);
      out.push(type === 'map' ? mergeApplied(prior, applied[next], itemsOf(s)) : clone(applied[next]));
    }
  };
  for (const v of live) {
    const at = appliedIds.indexOf(id(v));
    if (at < 0) out.push(clone(v));
    else if (at >= next) emitUpTo(at);
  }
  emitUpTo(applied.length - 1);
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
