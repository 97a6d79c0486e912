// Strategic merge patch as kube-apiserver applies it to the built-in kinds: a JSON merge patch
// whose lists merge by the keys the kind declares (patchStrategy/patchMergeKey), with the
// directives kubectl writes: $patch (replace, delete, merge), $retainKeys, $setElementOrder/<list>
// and $deleteFromPrimitiveList/<list>. Lists without a merge strategy are replaced whole, as the
// merge patch of RFC 7386 does. The rules, orders and refusals are those of the Kubernetes
// library (k8s.io/apimachinery strategicpatch), which test/unit/kube-patch/kubectl-smp.test.ts
// compares us with, case by case.
import { badRequest, invalid, PatchError } from './result';
import { clone, deepEqual, define, has, isObject, type JsonObject } from './json';
import { fieldOf, itemsOf, type FieldSchema } from './schema';

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ORDER = '$setElementOrder/';
const DELETE_PRIMITIVE = '$deleteFromPrimitiveList/';

const bad = (message: string): never => {
  throw new PatchError(badRequest(message));
};

export function strategicMergePatch(original: JsonObject, patch: unknown, schema: FieldSchema): JsonObject {
  if (!isObject(patch)) return bad('a strategic merge patch must be a JSON object');
  return mergeMap(clone(original), clone(patch), schema);
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: FieldSchema): JsonObject {
  const directive = patch[PATCH];
  if (directive !== undefined) {
    delete patch[PATCH];
    if (directive === 'replace') return patch;
    if (directive === 'delete') return {};
    if (directive !== 'merge') bad(`unknown patch type: ${JSON.stringify(directive)} in map; $patch must be replace, delete or merge`);
  }
  if (has(patch, RETAIN_KEYS)) retainKeys(original, patch);
  for (const key of Object.keys(patch)) if (key.startsWith(SET_ORDER)) setElementOrder(original, patch, key.slice(SET_ORDER.length), patch[key], fieldOf(schema, key.slice(SET_ORDER.length)));
  for (const key of Object.keys(patch)) {
    if (key === RETAIN_KEYS || key.startsWith(SET_ORDER) || key.startsWith(DELETE_PRIMITIVE)) continue;
    if (key.startsWith('$')) bad(`unknown strategic merge patch directive ${JSON.stringify(key)}`);
    const value = patch[key];
    if (value === null) {
      delete original[key];
      continue;
    }
    const field = fieldOf(schema, key);
    if (!has(original, key)) {
      // a field the original lacks takes the patch value, less its directives; a merged list is
      // merged into nothing, so that its items are held to their merge key
      if (Array.isArray(value) && field.list?.patchMerge) {
        define(original, key, mergeList([], value, field));
        continue;
      }
      const [v, keep] = withoutDirectives(value, true);
      if (keep) define(original, key, v);
      continue;
    }
    const current = original[key];
    if (isObject(current) && isObject(value)) define(original, key, mergeMap(current, value, field));
    else if (Array.isArray(current) && Array.isArray(value)) define(original, key, mergeList(current, value, field));
    else define(original, key, withoutDirectives(value, false)[0]);
  }
  // Deletions from a primitive list last: upstream takes the patch's keys in no set order, so a
  // value both added and deleted may stay or go there; here the deletion always wins.
  for (const key of Object.keys(patch)) if (key.startsWith(DELETE_PRIMITIVE)) deleteFromPrimitiveList(original, key.slice(DELETE_PRIMITIVE.length), patch[key]);
  return original;
}

// The library's removeDirectives: a map holding $patch goes, as do list items holding one; the
// nulls of maps go when the value is new.
function withoutDirectives(value: unknown, dropNulls: boolean): [unknown, boolean] {
  if (isObject(value)) {
    if (has(value, PATCH)) return [undefined, false];
    const out: JsonObject = {};
    for (const k of Object.keys(value)) {
      if (k.startsWith('$')) continue;
      if (value[k] === null && dropNulls) continue;
      const [v, keep] = withoutDirectives(value[k], dropNulls);
      if (keep) define(out, k, v);
    }
    return [out, true];
  }
  if (Array.isArray(value)) return [value.filter((v) => !(isObject(v) && has(v, PATCH))), true];
  return [value, true];
}

function mergeList(original: unknown[], patch: unknown[], field: FieldSchema): unknown[] {
  const merge = field.list?.patchMerge;
  if (!merge) return withoutDirectives(patch, false)[0] as unknown[];
  if (original.length === 0 && patch.length === 0) return original;
  const key = merge.key;
  let base = original;
  let items = patch;
  if (key === undefined) {
    for (const v of patch) if (isObject(v) || Array.isArray(v)) bad('a list merged as a set of values holds only scalars');
    const merged = [...original];
    for (const v of patch) if (!merged.some((o) => deepEqual(o, v))) merged.push(v);
    return inOrder(merged, items, base, undefined);
  }
  ({ base, items } = specialElements(original, patch, key));
  const merged = base.map((v) => v);
  for (const p of items) {
    if (!isObject(p) || !has(p, key)) return bad(`map: ${JSON.stringify(p)} does not contain declared merge key: ${key}`);
    const at = merged.findIndex((o) => isObject(o) && deepEqual(o[key], p[key]));
    if (at >= 0) merged[at] = mergeMap(merged[at] as JsonObject, p, itemsOf(field));
    else merged.push(p);
  }
  return inOrder(merged, items, base, key);
}

// "$patch: delete" items remove the original's of the same key; any "$patch: replace" makes the
// rest of the patch the list.
function specialElements(original: unknown[], patch: unknown[], key: string): { base: unknown[]; items: unknown[] } {
  const items: unknown[] = [];
  let base = original;
  let replace = false;
  for (const p of patch) {
    if (!isObject(p)) return bad(`a list merged by "${key}" holds only objects, not ${JSON.stringify(p)}`);
    if (!has(p, PATCH)) {
      items.push(p);
      continue;
    }
    const d = p[PATCH];
    if (d === 'delete') {
      if (!has(p, key)) bad(`map: ${JSON.stringify(p)} does not contain declared merge key: ${key}`);
      base = base.filter((o) => !(isObject(o) && deepEqual(o[key], p[key])));
    } else if (d === 'replace') replace = true;
    else if (d === 'merge') bad('merging lists cannot yet be specified in the patch');
    else bad(`unknown patch type: ${JSON.stringify(d)} in a list item; $patch must be replace, delete or merge`);
  }
  return replace ? { base: items, items: [] } : { base, items };
}

const identity = (v: unknown, key: string | undefined): unknown => (key !== undefined && isObject(v) ? v[key] : v);
const indexIn = (list: unknown[], v: unknown, key: string | undefined): number => list.findIndex((x) => deepEqual(identity(x, key), identity(v, key)));

// The library's order: the items the patch (or $setElementOrder) names, in its order, merged
// with the others in the original's order; where an item of each is in the original, the earlier
// comes first, else the named one.
function inOrder(merged: unknown[], order: unknown[], serverOrder: unknown[], key: string | undefined): unknown[] {
  if (key !== undefined) for (const v of merged) if (!isObject(v) || !has(v, key)) bad(`map: ${JSON.stringify(v)} does not contain declared merge key: ${key}`);
  const named = merged.filter((v) => indexIn(order, v, key) >= 0).sort((a, b) => indexIn(order, a, key) - indexIn(order, b, key));
  const serverOnly = merged.filter((v) => indexIn(order, v, key) < 0).sort((a, b) => indexIn(serverOrder, a, key) - indexIn(serverOrder, b, key));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < named.length) {
    if (j >= named.length) out.push(serverOnly[i++]);
    else if (i >= serverOnly.length) out.push(named[j++]);
    else {
      const li = indexIn(serverOrder, serverOnly[i], key);
      const ri = indexIn(serverOrder, named[j], key);
      if (li >= 0 && ri >= 0 && li < ri) out.push(serverOnly[i++]);
      else out.push(named[j++]);
    }
  }
  return out;
}

function retainKeys(original: JsonObject, patch: JsonObject): void {
  const keep = patch[RETAIN_KEYS];
  if (!Array.isArray(keep) || keep.some((k) => typeof k !== 'string')) bad('$retainKeys must be a list of field names');
  const names = new Set(keep as string[]);
  for (const k of Object.keys(patch)) {
    if (k.startsWith('$')) continue;
    if (!names.has(k) && patch[k] !== null)
      throw new PatchError(invalid(`the patch sets "${k}", which $retainKeys does not list: the patch content does not match $retainKeys`));
  }
  for (const k of Object.keys(original)) if (!names.has(k)) delete original[k];
}

function deleteFromPrimitiveList(original: JsonObject, key: string, values: unknown): void {
  if (!Array.isArray(values)) bad(`${DELETE_PRIMITIVE}${key} must be a list of values`);
  const list = original[key];
  if (!Array.isArray(list)) return;
  define(original, key, list.filter((v) => !(values as unknown[]).some((d) => deepEqual(d, v))));
}

// $setElementOrder/<key>: merges the patch's list now, then orders the result as the directive
// says; the patch's own items must appear in it in the same order.
function setElementOrder(original: JsonObject, patch: JsonObject, key: string, order: unknown, field: FieldSchema): void {
  if (!Array.isArray(order)) bad(`${SET_ORDER}${key} must be a list`);
  const list = order as unknown[];
  const mergeKey = field.list?.patchMerge?.key;
  if (mergeKey !== undefined) for (const o of list) if (!(isObject(o) && has(o, mergeKey))) bad(`${SET_ORDER}${key}: map: ${JSON.stringify(o)} does not contain declared merge key: ${mergeKey}`);
  const foundOriginal = has(original, key);
  const foundPatch = has(patch, key);
  const originalList = foundOriginal && Array.isArray(original[key]) ? (original[key] as unknown[]) : [];
  const patchList = foundPatch && Array.isArray(patch[key]) ? (patch[key] as unknown[]) : [];
  checkOrder(patchList, list, mergeKey, key);
  let merged: unknown[];
  if (foundOriginal && !foundPatch) merged = originalList;
  else if (!foundOriginal && foundPatch) merged = withoutDirectives(patchList, false)[0] as unknown[];
  else if (foundOriginal && foundPatch) merged = mergeList(originalList, patchList, field);
  else return;
  if (originalList.length === 0 && patchList.length === 0) bad(`${SET_ORDER}${key}: no elements in any of the given slices`);
  define(original, key, inOrder(merged, list, originalList, mergeKey));
  delete patch[key];
}

function checkOrder(patchList: unknown[], order: unknown[], mergeKey: string | undefined, key: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey === undefined ? patchList : patchList.filter((p) => !(isObject(p) && p[PATCH] === 'delete'));
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (isObject(items[p]) && has(items[p] as JsonObject, PATCH)) {
      p++;
      continue;
    }
    if (deepEqual(identity(items[p], mergeKey), identity(order[o], mergeKey))) p++;
    o++;
  }
  if (p < items.length) bad(`the order in the patch list ${JSON.stringify(patchList)} does not match the ${SET_ORDER}${key} list ${JSON.stringify(order)}`);
}
