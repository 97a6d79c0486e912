// The structural view of the component schemas (types, properties, items, defaults, list types),
// compiled once from src/generated/openapi.json. It drives what ajv does not: defaulting as the
// API server does it, pruning of nulls, unknown-field detection (kubectl's Strict field validation)
// and the uniqueness of list-type map/set items.
import openapi from '../../generated/openapi.json';
import { child, duplicate, index, mapKey, unknownField } from './messages';
import type { FieldError } from './types';

/* eslint-disable @typescript-eslint/no-explicit-any */
// any: a JSON value of any shape, walked along a schema that says at run time what each field is
type Json = any;

export interface SNode {
  type?: string;
  /** declared properties; undefined for maps and free-form objects */
  props?: Map<string, SNode>;
  /** map values (additionalProperties schema) */
  values?: SNode;
  /** an object whose fields are not checked (metadata, free-form) */
  freeForm?: boolean;
  items?: SNode;
  hasDefault?: boolean;
  dflt?: Json;
  listType?: 'map' | 'set';
  mapKeys?: string[];
}

const schemas: Record<string, Json> = (openapi as Json).components.schemas;
const byRef = new Map<string, SNode>();
const UNCHECKED_SCHEMAS = new Set(['ObjectMeta']);

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

function compileRef(name: string): SNode {
  let node = byRef.get(name);
  if (node) return node;
  node = {};
  byRef.set(name, node); // set before filling so that recursive schemas terminate
  if (UNCHECKED_SCHEMAS.has(name)) {
    node.type = 'object';
    node.freeForm = true;
  } else {
    Object.assign(node, compile(schemas[name]));
  }
  return node;
}

function compile(s: Json): SNode {
  if (!s || typeof s !== 'object') return {};
  let node: SNode = {};
  if (typeof s.$ref === 'string') node = { ...compileRef(refName(s.$ref)) };
  if (typeof s.type === 'string') node.type = s.type;
  if ('default' in s) {
    node.hasDefault = true;
    node.dflt = s.default;
  }
  if (s.properties) {
    node.props = new Map();
    for (const [k, v] of Object.entries(s.properties)) node.props.set(k, compile(v));
  }
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
    if (s.additionalProperties === true) node.freeForm = true;
    else node.values = compile(s.additionalProperties);
  }
  if (node.type === 'object' && !node.props && !node.values) node.freeForm = true;
  if (s.items) node.items = compile(s.items);
  if (s['x-kubernetes-list-type'] === 'map' || s['x-kubernetes-list-type'] === 'set') {
    node.listType = s['x-kubernetes-list-type'];
    if (node.listType === 'map') node.mapKeys = s['x-kubernetes-list-map-keys'];
  }
  return node;
}

export function structuralNode(schemaName: string): SNode {
  return compileRef(schemaName);
}

const isPlainObject = (v: unknown): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep copy of JSON data. Nesting deeper than `maxDepth` is shared, not copied, and reported. */
export function cloneJson(v: Json, maxDepth: number, state: { tooDeep: boolean }, depth = 0): Json {
  if (typeof v !== 'object' || v === null) return v;
  if (depth >= maxDepth) {
    state.tooDeep = true;
    return v;
  }
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneJson(v[i], maxDepth, state, depth + 1);
    return out;
  }
  const out: Record<string, Json> = {};
  for (const k of Object.keys(v)) {
    const c = cloneJson(v[k], maxDepth, state, depth + 1);
    if (k === '__proto__') Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
    else out[k] = c;
  }
  return out;
}

function copyDefault(v: Json): Json {
  return typeof v === 'object' && v !== null ? JSON.parse(JSON.stringify(v)) : v;
}

export interface PrepareState {
  errors: FieldError[];
  tooDeep: boolean;
  maxDepth: number;
}

function setOwn(o: Record<string, Json>, k: string, v: Json): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/**
 * One pass over the input that returns a defaulted deep copy and reports unknown fields (kubectl's
 * Strict field validation) and list-type map/set duplicates. Defaulting is the API server's
 * structural defaulting: non-nullable nulls are pruned (and defaulted when they have a default),
 * absent fields with a default get a copy of it, and the walk descends into every field, defaulted
 * ones included. Values of the wrong type are copied as they are, for the schema to report.
 */
export function prepare(v: Json, node: SNode | undefined, path: string, st: PrepareState, depth = 0): Json {
  if (typeof v !== 'object' || v === null) return v;
  if (!node || node.freeForm) return cloneJson(v, st.maxDepth - depth, st);
  if (depth >= st.maxDepth) {
    st.tooDeep = true;
    return v;
  }
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    const items = node.items;
    for (let i = 0; i < v.length; i++) out[i] = prepare(v[i], items, `${path}[${i}]`, st, depth + 1);
    if (node.listType && items) checkListUniqueness(out, node, path, st.errors);
    return out;
  }
  const out: Record<string, Json> = {};
  const props = node.props;
  if (props) {
    // declared fields in schema order, so that the stored form does not depend on the input's key order
    // a field's path is made only for the fields present (or defaulted): most declared ones are absent
    for (const [k, p] of props) {
      const x = v[k];
      if (x !== undefined && x !== null) out[k] = prepare(x, p, path ? `${path}.${k}` : k, st, depth + 1);
      else if (p.hasDefault) out[k] = prepare(copyDefault(p.dflt), p, path ? `${path}.${k}` : k, st, depth + 1);
    }
    for (const k in v) {
      if (!Object.hasOwn(v, k) || props.has(k)) continue;
      const kp = path ? `${path}.${k}` : k;
      st.errors.push({ path: kp, message: unknownField(kp) });
      setOwn(out, k, cloneJson(v[k], st.maxDepth - depth - 1, st));
    }
  } else if (node.values) {
    // map keys sorted, as the API server serializes maps
    for (const k of Object.keys(v).sort()) setOwn(out, k, prepare(v[k], node.values, mapKey(path, k), st, depth + 1));
  } else {
    return cloneJson(v, st.maxDepth - depth, st);
  }
  return out;
}

function scalarKey(v: unknown): string | undefined {
  if (typeof v === 'string') return 's' + v;
  if (typeof v === 'number' || typeof v === 'boolean') return typeof v + String(v);
  return undefined;
}

function checkListUniqueness(list: Json[], node: SNode, path: string, errors: FieldError[]): void {
  if (list.length < 2) return;
  const seen = new Set<string>();
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    let key: string | undefined;
    let shown: unknown;
    if (node.listType === 'set') {
      key = scalarKey(item);
      shown = item;
    } else if (isPlainObject(item) && node.mapKeys) {
      const parts: string[] = [];
      const obj: Record<string, unknown> = {};
      for (const k of node.mapKeys) {
        const part = scalarKey(item[k]);
        if (part === undefined) break;
        parts.push(part);
        obj[k] = item[k];
      }
      if (parts.length === node.mapKeys.length) {
        key = JSON.stringify(parts);
        shown = obj;
      }
    }
    if (key === undefined) continue;
    if (seen.has(key)) errors.push({ path: index(path, i), message: duplicate(shown) });
    else seen.add(key);
  }
}

/** Converts an ajv instancePath (JSON pointer) to Kubernetes notation, using the data and the schema. */
export function pointerToPath(pointer: string, data: Json, node: SNode | undefined): string {
  if (!pointer) return '';
  let path = '';
  let cur = data;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      path = index(path, Number(seg));
      node = node?.items;
    } else if (node && !node.props && node.values) {
      path = mapKey(path, seg);
      node = node.values;
    } else {
      path = child(path, seg);
      node = node?.props?.get(seg);
    }
    cur = cur == null ? undefined : cur[seg];
  }
  return path;
}
