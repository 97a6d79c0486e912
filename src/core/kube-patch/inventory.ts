// The fields of an object as server-side apply counts them: each leaf (a scalar, an atomic list or
// map) with its value, each item of a keyed list or set, and each map (which an update that adds it
// owns as a whole). Structs are not members: their fields are. The fields the server owns alone
// (apiVersion, kind, name, uid, resourceVersion, ..., and status, written by the control plane) are
// left out, as kube-apiserver strips them from every manager's set.
import { FieldSet, fieldElement, keyElement, keyOf, valueElement, type FieldPath } from './field-set';
import { canonicalJson, has, isObject, type JsonObject } from './json';
import { invalid, PatchError } from './result';
import { fieldOf, itemsOf, listTypeOf, type FieldSchema } from './schema';

export interface Entry {
  path: FieldPath;
  kind: 'leaf' | 'item' | 'map';
  /** a leaf's value, canonical JSON */
  value?: string;
}

export type Inventory = Map<string, Entry>;

const TOP_STRIPPED = new Set(['apiVersion', 'kind', 'status']);
const META_STRIPPED = new Set(['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'generation', 'managedFields', 'resourceVersion']);

/** Stable JSON: object keys sorted, so that equal values compare equal. */
export const canonical = (v: unknown): string => canonicalJson(v) ?? 'null';

/**
 * `strict` is for an applied configuration: a keyed list item without its keys, or two items with
 * the same keys, is a 422 there; in a stored object they are counted as best they can be.
 */
export function inventory(obj: unknown, schema: FieldSchema, strict: boolean): Inventory {
  const out: Inventory = new Map();
  const put = (e: Entry): void => {
    out.set(keyOf(e.path), e);
  };
  const walk = (value: unknown, s: FieldSchema, path: FieldPath, where: string): void => {
    if (isObject(value)) {
      if (s.atomic || s.list) return put({ path, kind: 'leaf', value: canonical(value) });
      if (s.values && path.length > 0) put({ path, kind: 'map' });
      for (const k of Object.keys(value)) {
        if (path.length === 0 && TOP_STRIPPED.has(k)) continue;
        if (path.length === 1 && path[0] === 'f:metadata' && META_STRIPPED.has(k)) continue;
        walk(value[k], fieldOf(s, k), [...path, fieldElement(k)], where ? `${where}.${k}` : k);
      }
      return;
    }
    if (Array.isArray(value)) {
      const type = listTypeOf(s);
      if (type === 'atomic') return put({ path, kind: 'leaf', value: canonical(value) });
      const seen = new Set<string>();
      value.forEach((item, i) => {
        let element: string;
        if (type === 'set') {
          if (isObject(item) || Array.isArray(item)) {
            if (strict) throw new PatchError(invalid(`${where}[${i}]: a list of type set holds only scalars`, [{ field: `${where}[${i}]`, message: 'a list of type set holds only scalars', reason: 'FieldValueTypeInvalid' }]));
            return;
          }
          element = valueElement(item);
        } else {
          const keys = keysOf(item, s, strict, `${where}[${i}]`);
          if (!keys) return;
          element = keyElement(keys);
        }
        if (seen.has(element)) {
          if (strict) throw new PatchError(invalid(`${where}[${i}]: duplicate entries for key ${element.slice(2)}`, [{ field: `${where}[${i}]`, message: `duplicate entries for key ${element.slice(2)}`, reason: 'FieldValueDuplicate' }]));
          return;
        }
        seen.add(element);
        const itemPath = [...path, element];
        put({ path: itemPath, kind: 'item' });
        if (type === 'map') walk(item, itemsOf(s), itemPath, `${where}[${i}]`);
      });
      return;
    }
    put({ path, kind: 'leaf', value: canonical(value) });
  };
  walk(obj, schema, [], '');
  return out;
}

function keysOf(item: unknown, s: FieldSchema, strict: boolean, where: string): Record<string, unknown> | null {
  const list = s.list!;
  if (!isObject(item)) {
    if (strict) throw new PatchError(invalid(`${where}: an item of a list keyed by ${list.keys!.join(', ')} must be an object`, [{ field: where, message: 'must be an object', reason: 'FieldValueTypeInvalid' }]));
    return null;
  }
  const keys: Record<string, unknown> = {};
  for (const k of list.keys!) {
    if (has(item, k) && item[k] !== null) keys[k] = item[k];
    else if (list.keyDefaults && has(list.keyDefaults, k)) keys[k] = list.keyDefaults[k];
    else if (strict) throw new PatchError(invalid(`${where}: associative list with keys has an element that omits key field "${k}" (and doesn't have default value)`, [{ field: `${where}.${k}`, message: 'Required value', reason: 'FieldValueRequired' }]));
    else return null;
  }
  return keys;
}

/** The item of a keyed list with these keys, or -1. */
export function findKeyed(list: unknown[], keys: JsonObject, s: FieldSchema): number {
  return list.findIndex((item) => {
    const k = keysOf(item, s, false, '');
    return k !== null && canonical(k) === canonical(keys);
  });
}

/** What server-side apply owns of an applied configuration: its leaves and its list items. */
export function ownedBy(inv: Inventory): FieldSet {
  return FieldSet.of([...inv.values()].filter((e) => e.kind !== 'map').map((e) => e.path));
}

export interface Comparison {
  added: FieldSet;
  removed: FieldSet;
  modified: FieldSet;
}

export function compare(before: Inventory, after: Inventory): Comparison {
  const added = new FieldSet();
  const removed = new FieldSet();
  const modified = new FieldSet();
  for (const [k, e] of after) {
    const b = before.get(k);
    if (!b) added.add(e.path);
    else if (e.kind === 'leaf' && (b.kind !== 'leaf' || b.value !== e.value)) modified.add(e.path);
  }
  for (const [k, e] of before) if (!after.has(k)) removed.add(e.path);
  return { added, removed, modified };
}
