// Strategic merge patch as kube-apiserver applies it to the built-in kinds: a JSON merge patch
// whose lists merge by the keys the kind declares (patchStrategy/patchMergeKey), with the
// directives kubectl writes: $patch (replace, delete, merge), $retainKeys, $setElementOrder/<list>
// and $deleteFromPrimitiveList/<list>. Lists without a merge strategy are replaced whole, as the
// merge patch of RFC 7386 does. A directive never reaches the result.
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
  const out = mergeMap(clone(original), patch, schema);
  return out;
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: FieldSchema): JsonObject {
  const directive = patch[PATCH];
  if (directive !== undefined) {
    if (directive === 'replace') return withoutDirectives(patch, schema) as JsonObject;
    if (directive === 'delete') return {};
    if (directive !== 'merge') bad(`unknown patch type: ${JSON.stringify(directive)} in map; $patch must be replace, delete or merge`);
  }
  if (has(patch, RETAIN_KEYS)) retainKeys(original, patch);
  const orders: [string, unknown][] = [];
  const before = clone(original);
  for (const key of Object.keys(patch)) {
    if (key === PATCH || key === RETAIN_KEYS) continue;
    const value = patch[key];
    if (key.startsWith(SET_ORDER)) {
      orders.push([key.slice(SET_ORDER.length), value]);
      continue;
    }
    if (key.startsWith(DELETE_PRIMITIVE)) {
      deleteFromPrimitiveList(original, key.slice(DELETE_PRIMITIVE.length), value);
      continue;
    }
    if (key.startsWith('$')) bad(`unknown strategic merge patch directive ${JSON.stringify(key)}`);
    const field = fieldOf(schema, key);
    if (value === null || (isObject(value) && value[PATCH] === 'delete')) {
      delete original[key];
      continue;
    }
    const current = has(original, key) ? original[key] : undefined;
    define(original, key, mergeValue(current, value, field));
  }
  for (const [key, order] of orders) setElementOrder(original, before, key, order, fieldOf(schema, key));
  return original;
}

function mergeValue(current: unknown, value: unknown, field: FieldSchema): unknown {
  if (isObject(value)) return mergeMap(isObject(current) ? current : {}, value, field);
  if (Array.isArray(value)) return mergeList(Array.isArray(current) ? current : [], value, field);
  return value;
}

/** The patch value as a plain value: what a field absent from the original becomes. */
function withoutDirectives(value: unknown, field: FieldSchema): unknown {
  if (isObject(value)) {
    const copy: JsonObject = { ...value };
    delete copy[PATCH];
    return mergeMap({}, copy, field);
  }
  if (Array.isArray(value)) return mergeList([], value, field);
  return value;
}

function mergeList(original: unknown[], patch: unknown[], field: FieldSchema): unknown[] {
  const merge = field.list?.patchMerge;
  const items = itemsOf(field);
  if (!merge) return patch.filter((p) => !(isObject(p) && has(p, PATCH))).map((p) => withoutDirectives(p, items));
  const replace = patch.some((p) => isObject(p) && p[PATCH] === 'replace');
  if (replace) return mergeList([], patch.filter((p) => !(isObject(p) && p[PATCH] === 'replace')), field);
  if (merge.key === undefined) {
    // a merge list of scalars is a set: the patch's values are added to the original's
    const out = [...original];
    for (const v of patch) {
      if (isObject(v) || Array.isArray(v)) bad('a list merged as a set of values holds only scalars');
      if (!out.some((o) => deepEqual(o, v))) out.push(v);
    }
    return out;
  }
  const key = merge.key;
  const out = original.map(clone);
  for (const p of patch) {
    if (!isObject(p)) return bad(`a list merged by "${key}" holds only objects, not ${JSON.stringify(p)}`);
    if (!has(p, key)) bad(`map: ${JSON.stringify(p)} does not contain declared merge key: ${key}`);
    const at = out.findIndex((o) => isObject(o) && deepEqual(o[key], p[key]));
    const directive = p[PATCH];
    if (directive === 'delete') {
      if (at >= 0) out.splice(at, 1);
      continue;
    }
    if (directive !== undefined && directive !== 'merge' && directive !== 'replace')
      bad(`unknown patch type: ${JSON.stringify(directive)} in a list item; $patch must be replace, delete or merge`);
    if (at >= 0) out[at] = mergeMap(out[at] as JsonObject, p, items);
    else out.push(mergeMap({}, p, items));
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
  const rest = list.filter((v) => !(values as unknown[]).some((d) => deepEqual(d, v)));
  if (rest.length === 0) delete original[key];
  else define(original, key, rest);
}

// The list in the order $setElementOrder gives, the items the server alone has (the patch did not
// name them) placed where they were, as kube-apiserver's normalizeElementOrder does.
function setElementOrder(original: JsonObject, before: JsonObject, key: string, order: unknown, field: FieldSchema): void {
  if (!Array.isArray(order)) bad(`${SET_ORDER}${key} must be a list`);
  const list = original[key];
  if (!Array.isArray(list)) return;
  const mergeKey = field.list?.patchMerge?.key;
  const identity = (v: unknown): unknown => (mergeKey !== undefined && isObject(v) ? v[mergeKey] : v);
  const wanted = (order as unknown[]).map((o) => {
    if (mergeKey !== undefined && !(isObject(o) && has(o, mergeKey))) bad(`${SET_ORDER}${key}: each entry names its "${mergeKey}"`);
    return identity(o);
  });
  const indexIn = (values: unknown[], v: unknown) => values.findIndex((x) => deepEqual(x, identity(v)));
  const serverOrder = (Array.isArray(before[key]) ? (before[key] as unknown[]) : []).map(identity);
  const named = list.filter((v) => indexIn(wanted, v) >= 0).sort((a, b) => indexIn(wanted, a) - indexIn(wanted, b));
  const serverOnly = list.filter((v) => indexIn(wanted, v) < 0);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < named.length || j < serverOnly.length) {
    if (j >= serverOnly.length) out.push(named[i++]);
    else if (i >= named.length) out.push(serverOnly[j++]);
    else {
      const li = indexIn(serverOrder, named[i]);
      const ri = indexIn(serverOrder, serverOnly[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(named[i++]);
      else out.push(serverOnly[j++]);
    }
  }
  define(original, key, out);
}
