// RFC 6902 JSON Patch over RFC 6901 JSON Pointers. kube-apiserver answers 400 when the patch
// cannot be read and 422 when it reads but does not apply (a failed "test" included); both are
// PatchErrors here. The document is copied first, so a patch that fails half-way changes nothing.
// Where kube-apiserver's JSON patch library accepts more than the RFC, so do we, since a patch that
// works there must work here: negative array indexes count from the end (for add, -1 appends),
// indexes may have leading zeros, replace of a missing member adds it, test of a missing value
// against null succeeds, and copy from a missing value copies null.
import { badRequest, invalid, PatchError } from './result';
import { clone, deepEqual, define, has, isObject } from './json';

export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** Reads a patch body into operations, or throws a 400. */
export function readJsonPatch(body: unknown): JsonPatchOperation[] {
  if (!Array.isArray(body)) throw new PatchError(badRequest('a JSON patch must be an array of operations'));
  return body.map((op, i) => {
    const where = `operation ${i}`;
    if (!isObject(op)) throw new PatchError(badRequest(`${where}: must be an object`));
    if (typeof op.op !== 'string' || !OPS.has(op.op)) throw new PatchError(badRequest(`${where}: "op" must be one of add, remove, replace, move, copy, test`));
    if (typeof op.path !== 'string') throw new PatchError(badRequest(`${where}: "path" must be a string`));
    parsePointer(op.path, where);
    if ((op.op === 'move' || op.op === 'copy')) {
      if (typeof op.from !== 'string') throw new PatchError(badRequest(`${where}: "${op.op}" needs a "from" string`));
      parsePointer(op.from, where);
    }
    if ((op.op === 'add' || op.op === 'replace' || op.op === 'test') && !has(op, 'value'))
      throw new PatchError(badRequest(`${where}: "${op.op}" needs a "value"`));
    return op as unknown as JsonPatchOperation;
  });
}

/** RFC 6901: "" is the whole document; each token has ~1 for "/" and ~0 for "~". */
export function parsePointer(pointer: string, where = 'pointer'): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(badRequest(`${where}: the path ${JSON.stringify(pointer)} must be empty or start with "/"`));
  return pointer.slice(1).split('/').map((t) => {
    if (/~[^01]|~$/.test(t)) throw new PatchError(badRequest(`${where}: the path ${JSON.stringify(pointer)} holds a "~" that is not ~0 or ~1`));
    return t.replace(/~1/g, '/').replace(/~0/g, '~');
  });
}

export function applyJsonPatch(document: unknown, operations: JsonPatchOperation[]): unknown {
  let doc = clone(document);
  operations.forEach((op, i) => {
    const fail = (msg: string): never => {
      throw new PatchError(invalid(`the JSON patch does not apply: operation ${i} (${op.op} ${op.path}): ${msg}`));
    };
    const path = parsePointer(op.path);
    switch (op.op) {
      case 'add': doc = add(doc, path, clone(op.value), fail); break;
      case 'remove': doc = remove(doc, path, fail).doc; break;
      case 'replace': {
        if (path.length === 0) doc = clone(op.value);
        else if (isObject(parentOf(doc, path, fail))) doc = add(doc, path, clone(op.value), fail);
        else doc = set(doc, path, clone(op.value), fail);
        break;
      }
      case 'move': {
        const from = parsePointer(op.from as string);
        if (from.length < path.length && from.every((t, k) => t === path[k])) fail(`"from" ${op.from} is a parent of "path"`);
        const removed = remove(doc, from, fail);
        doc = add(removed.doc, path, removed.value, fail);
        break;
      }
      case 'copy': doc = add(doc, path, clone(lookup(doc, parsePointer(op.from as string), fail)), fail); break;
      case 'test': {
        if (!deepEqual(lookup(doc, path, fail), op.value)) fail('the value there is not the one tested for');
        break;
      }
    }
  });
  return doc;
}

type Fail = (msg: string) => never;

function arrayIndex(token: string, length: number, forAdd: boolean, fail: Fail): number {
  if (forAdd && token === '-') return length;
  if (!/^-?[0-9]+$/.test(token)) fail(`"${token}" is not an array index`);
  let n = Number(token);
  if (n < 0) n += forAdd ? length + 1 : length;
  if (n < 0 || n > length || (!forAdd && n === length)) fail(`index ${token} is out of bounds (length ${length})`);
  return n;
}

/** The value at a path, null where an object lacks the last member (test and copy read it so). */
function lookup(doc: unknown, path: string[], fail: Fail): unknown {
  if (path.length === 0) return doc;
  const parent = parentOf(doc, path, fail);
  const last = path[path.length - 1];
  if (isObject(parent) && !has(parent, last)) return null;
  return child(parent, last, fail);
}

function child(container: unknown, token: string, fail: Fail): unknown {
  if (Array.isArray(container)) return container[arrayIndex(token, container.length, false, fail)];
  if (isObject(container)) {
    if (!has(container, token)) fail(`there is no "${token}"`);
    return container[token];
  }
  return fail(`"${token}" is below a value that is neither an object nor an array`);
}

function get(doc: unknown, path: string[], fail: Fail): unknown {
  return path.reduce((cur, t) => child(cur, t, fail), doc);
}

function parentOf(doc: unknown, path: string[], fail: Fail): unknown {
  return get(doc, path.slice(0, -1), fail);
}

function add(doc: unknown, path: string[], value: unknown, fail: Fail): unknown {
  if (path.length === 0) return value;
  const parent = parentOf(doc, path, fail);
  const last = path[path.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, true, fail), 0, value);
  else if (isObject(parent)) define(parent, last, value);
  else fail(`"${last}" is below a value that is neither an object nor an array`);
  return doc;
}

function set(doc: unknown, path: string[], value: unknown, fail: Fail): unknown {
  const parent = parentOf(doc, path, fail);
  const last = path[path.length - 1];
  if (Array.isArray(parent)) parent[arrayIndex(last, parent.length, false, fail)] = value;
  else define(parent as Record<string, unknown>, last, value);
  return doc;
}

function remove(doc: unknown, path: string[], fail: Fail): { doc: unknown; value: unknown } {
  if (path.length === 0) return fail('the whole document cannot be removed');
  const parent = parentOf(doc, path, fail);
  const last = path[path.length - 1];
  const value = child(parent, last, fail);
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, false, fail), 1);
  else delete (parent as Record<string, unknown>)[last];
  return { doc, value };
}
