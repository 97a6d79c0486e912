// The structural view of the component schemas (types, properties, items, defaults, list types),
// compiled once from src/generated/openapi.json. It drives what ajv does not: defaulting as the
// API server does it, pruning of nulls, unknown-field detection (kubectl's Strict field validation)
// and the uniqueness of list-type map/set items.
import openapi from '../../generated/openapi.json';
import { child, duplicate, index, mapKey, unknownField } from './messages';
import type { FieldError } from './types';

/* eslint-disable @typescript-eslint/no-explicit-any */
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
  /** properties that carry a default, for a quick defaulting pass */
  defaulted?: [string, SNode][];
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
    node.defaulted = [...node.props].filter(([, n]) => n.hasDefault);
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

/**
 * Structural defaulting in place, as the API server does it: non-nullable nulls are pruned (and
 * defaulted when they have a default), absent fields with a default get a copy of it, then the walk
 * descends into every field, defaulted ones included.
 */
export function applyStructuralDefaults(v: Json, node: SNode): void {
  if (Array.isArray(v)) {
    if (node.items) for (const item of v) applyStructuralDefaults(item, node.items);
    return;
  }
  if (!isPlainObject(v) || node.freeForm) return;
  if (node.props) {
    for (const k of Object.keys(v)) {
      if (v[k] === null && node.props.has(k)) delete v[k];
    }
    if (node.defaulted) {
      for (const [k, p] of node.defaulted) if (!Object.prototype.hasOwnProperty.call(v, k)) v[k] = copyDefault(p.dflt);
    }
    for (const k of Object.keys(v)) {
      const p = node.props.get(k);
      if (p && typeof v[k] === 'object') applyStructuralDefaults(v[k], p);
    }
  } else if (node.values) {
    for (const k of Object.keys(v)) if (typeof v[k] === 'object') applyStructuralDefaults(v[k], node.values);
  }
}

/** Unknown fields (Strict field validation) and list-type map/set uniqueness. */
export function checkStructure(v: Json, node: SNode, path: string, errors: FieldError[]): void {
  if (Array.isArray(v)) {
    if (!node.items) return;
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      if (typeof item === 'object' && item !== null) checkStructure(item, node.items, index(path, i), errors);
    }
    if (node.listType) checkListUniqueness(v, node, path, errors);
    return;
  }
  if (!isPlainObject(v) || node.freeForm) return;
  if (node.props) {
    for (const k of Object.keys(v)) {
      const p = node.props.get(k);
      const p2 = child(path, k);
      if (!p) errors.push({ path: p2, message: unknownField(p2) });
      else if (typeof v[k] === 'object' && v[k] !== null) checkStructure(v[k], p, p2, errors);
    }
  } else if (node.values) {
    for (const k of Object.keys(v)) {
      if (typeof v[k] === 'object' && v[k] !== null) checkStructure(v[k], node.values, mapKey(path, k), errors);
    }
  }
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
