// Sets of field paths, the unit of ownership of server-side apply, in the FieldsV1 form
// kube-apiserver writes into metadata.managedFields: "f:<name>" a field, "k:{...}" an item of a
// list keyed by its map keys (JSON, keys sorted), "v:<json>" a value of a set, "i:<n>" a position;
// "." marks a path that is itself a member and also has members below it.
import { define, isObject, type JsonObject } from './json';
import { badRequest, PatchError } from './result';

/** One path element as FieldsV1 spells it: "f:spec", 'k:{"port":80,"protocol":"TCP"}', 'v:"a"'. */
export type PathElement = string;
export type FieldPath = readonly PathElement[];

// U+0000 cannot be in a stored string (core/validate/storable.ts), so it cannot be in an element.
export const keyOf = (path: FieldPath): string => path.join('\u0000');

export class FieldSet {
  private readonly members = new Map<string, FieldPath>();

  static of(paths: Iterable<FieldPath>): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.add(p);
    return s;
  }

  add(path: FieldPath, key = keyOf(path)): void {
    this.members.set(key, path);
  }

  has(path: FieldPath): boolean {
    return this.members.has(keyOf(path));
  }

  get size(): number {
    return this.members.size;
  }

  paths(): FieldPath[] {
    return [...this.members.values()];
  }

  private filtered(keep: (key: string) => boolean): FieldSet {
    const s = new FieldSet();
    for (const [k, p] of this.members) if (keep(k)) s.members.set(k, p);
    return s;
  }

  union(other: FieldSet): FieldSet {
    const s = this.filtered(() => true);
    for (const [k, p] of other.members) s.members.set(k, p);
    return s;
  }

  difference(other: FieldSet): FieldSet {
    return other.size === 0 ? this : this.filtered((k) => !other.members.has(k));
  }

  intersection(other: FieldSet): FieldSet {
    return this.filtered((k) => other.members.has(k));
  }

  /** Every path that is a member or lies above one. */
  withAncestors(): FieldSet {
    const s = new FieldSet();
    for (const p of this.members.values()) for (let n = 1; n <= p.length; n++) s.add(p.slice(0, n));
    return s;
  }

  equals(other: FieldSet): boolean {
    if (this.size !== other.size) return false;
    for (const k of this.members.keys()) if (!other.members.has(k)) return false;
    return true;
  }

  toFieldsV1(): JsonObject {
    const root: Tree = { children: new Map(), member: false };
    for (const p of this.paths()) {
      let node = root;
      for (const e of p) {
        let next = node.children.get(e);
        if (!next) node.children.set(e, (next = { children: new Map(), member: false }));
        node = next;
      }
      node.member = true;
    }
    return serialize(root);
  }

  static fromFieldsV1(fields: unknown): FieldSet {
    const s = new FieldSet();
    const walk = (node: unknown, path: PathElement[]): void => {
      if (!isObject(node)) throw new PatchError(badRequest(`metadata.managedFields: fieldsV1 at ${JSON.stringify(path)} must be an object`));
      const keys = Object.keys(node);
      if (path.length > 0 && (keys.length === 0 || keys.includes('.'))) s.add(path);
      for (const k of keys) if (k !== '.') walk(node[k], [...path, k]);
    };
    walk(fields, []);
    return s;
  }
}

interface Tree {
  children: Map<PathElement, Tree>;
  member: boolean;
}

function serialize(node: Tree): JsonObject {
  const out: JsonObject = {};
  if (node.member && node.children.size > 0) out['.'] = {};
  const keys = [...node.children.keys()];
  if (keys.length > 1) {
    // each element's value parsed once, however many times the sort compares it
    const values = new Map(keys.map((e) => [e, e[0] === 'f' ? undefined : JSON.parse(e.slice(2))]));
    keys.sort((a, b) => compareElements(a, b, values));
  }
  for (const e of keys) define(out, e, serialize(node.children.get(e) as Tree));
  return out;
}

/**
 * The order in which kube-apiserver lists the paths of a set (a conflict's fields): at each level
 * the paths that end there first, by element, then the ones that go deeper, by their next element.
 */
export function comparePaths(a: FieldPath, b: FieldPath): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  if (n === a.length || n === b.length) return a.length - b.length;
  const aEnds = n === a.length - 1;
  const bEnds = n === b.length - 1;
  if (aEnds !== bEnds) return aEnds ? -1 : 1;
  const value = (e: PathElement): unknown => (e[0] === 'f' ? undefined : JSON.parse(e.slice(2)));
  return compareElements(a[n], b[n], new Map([[a[n], value(a[n])], [b[n], value(b[n])]]));
}

const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

// kube-apiserver's order: field names, then keys, then values, then indexes; numbers by value.
function compareElements(a: PathElement, b: PathElement, values: Map<PathElement, unknown>): number {
  const ra = RANK[a[0]] ?? 4;
  const rb = RANK[b[0]] ?? 4;
  if (ra !== rb) return ra - rb;
  if (a[0] === 'k' || a[0] === 'v' || a[0] === 'i') {
    const c = compareJson(values.get(a), values.get(b));
    if (c !== 0) return c;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareJson(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
      if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
      const c = compareJson(a[ka[i]], b[kb[i]]);
      if (c !== 0) return c;
    }
    return ka.length - kb.length;
  }
  const sa = JSON.stringify(a);
  const sb = JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

export const fieldElement = (name: string): PathElement => `f:${name}`;

/** The element of a keyed list item: its key fields, sorted, as JSON. */
export function keyElement(keys: Record<string, unknown>): PathElement {
  const sorted: JsonObject = {};
  for (const k of Object.keys(keys).sort()) define(sorted, k, keys[k]);
  return `k:${JSON.stringify(sorted)}`;
}

export const valueElement = (value: unknown): PathElement => `v:${JSON.stringify(value)}`;

/** A path as kube-apiserver names it in a conflict: .spec.ports[port=80,protocol="TCP"]. */
export function pathString(path: FieldPath): string {
  return path.map((e) => {
    const body = e.slice(2);
    switch (e[0]) {
      case 'f': return `.${body}`;
      case 'k': {
        const keys = JSON.parse(body) as JsonObject;
        return `[${Object.keys(keys).map((k) => `${k}=${JSON.stringify(keys[k])}`).join(',')}]`;
      }
      case 'v': return `[=${body}]`;
      default: return `[${body}]`;
    }
  }).join('');
}
