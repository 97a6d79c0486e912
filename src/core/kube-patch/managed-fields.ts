// metadata.managedFields: who owns which fields. Entries are read and written in the form
// kube-apiserver uses (operation Apply or Update, apiVersion, time, fieldsType FieldsV1, fieldsV1),
// and ownership moves as its field manager moves it: a write takes the fields it changes from every
// other manager (an update silently, an apply only when forced, else it is a conflict), and a
// manager left with no fields disappears.
import { comparePaths, FieldSet, type FieldPath } from './field-set';
import { compare, inventory, type Comparison } from './inventory';
import { clone, define, isObject, type JsonObject } from './json';
import { badRequest, PatchError } from './result';
import type { FieldSchema } from './schema';

export interface Manager {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  subresource?: string;
  fields: FieldSet;
}

/** Apply entries are one per manager whatever the version; Update entries one per version too. */
export function identity(m: Pick<Manager, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([m.manager, m.operation, m.operation === 'Update' ? m.apiVersion : '', m.subresource ?? '']);
}

export function readManagers(obj: unknown): Manager[] {
  const meta = isObject(obj) && isObject(obj.metadata) ? obj.metadata : undefined;
  const list = meta?.managedFields;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new PatchError(badRequest('metadata.managedFields must be a list'));
  return list.map((e, i) => {
    const where = `metadata.managedFields[${i}]`;
    if (!isObject(e)) throw new PatchError(badRequest(`${where} must be an object`));
    if (typeof e.manager !== 'string') throw new PatchError(badRequest(`${where}.manager must be a string`));
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new PatchError(badRequest(`${where}.operation must be Apply or Update`));
    if (e.fieldsType !== undefined && e.fieldsType !== 'FieldsV1') throw new PatchError(badRequest(`${where}.fieldsType must be FieldsV1`));
    return {
      manager: e.manager,
      operation: e.operation,
      apiVersion: typeof e.apiVersion === 'string' ? e.apiVersion : '',
      ...(typeof e.time === 'string' ? { time: e.time } : {}),
      ...(typeof e.subresource === 'string' && e.subresource !== '' ? { subresource: e.subresource } : {}),
      fields: FieldSet.fromFieldsV1(e.fieldsV1 ?? {}),
    };
  });
}

// kube-apiserver's order: Apply before Update, then oldest first, then by manager and version.
function order(a: Manager, b: Manager): number {
  if (a.operation !== b.operation) return a.operation < b.operation ? -1 : 1;
  const ta = a.time ? Date.parse(a.time) : 0;
  const tb = b.time ? Date.parse(b.time) : 0;
  if (ta !== tb) return ta - tb;
  if (a.manager !== b.manager) return a.manager < b.manager ? -1 : 1;
  if (a.apiVersion !== b.apiVersion) return a.apiVersion < b.apiVersion ? -1 : 1;
  return (a.subresource ?? '') < (b.subresource ?? '') ? -1 : (a.subresource ?? '') > (b.subresource ?? '') ? 1 : 0;
}

export function encodeManagers(managers: Manager[]): JsonObject[] {
  return managers.filter((m) => m.fields.size > 0).sort(order).map((m) => ({
    apiVersion: m.apiVersion,
    fieldsType: 'FieldsV1',
    fieldsV1: m.fields.toFieldsV1(),
    manager: m.manager,
    operation: m.operation,
    ...(m.subresource ? { subresource: m.subresource } : {}),
    ...(m.time ? { time: m.time } : {}),
  }));
}

/** The object with these managers in metadata.managedFields (none: the field is left out). */
export function withManagers(obj: JsonObject, managers: Manager[]): JsonObject {
  const out = clone(obj);
  const meta: JsonObject = isObject(out.metadata) ? out.metadata : {};
  const encoded = encodeManagers(managers);
  if (encoded.length > 0) define(meta, 'managedFields', encoded);
  else delete meta.managedFields;
  define(out, 'metadata', meta);
  return out;
}

export interface Conflict {
  manager: Manager;
  path: FieldPath;
}

/**
 * Moves ownership for a write from `before` to `after` by `self`: every other manager loses the
 * fields the write removed, and the fields it added or changed (those are conflicts unless
 * `force`). Returns the managers, the conflicts, and the comparison.
 */
export function transfer(before: unknown, after: unknown, schema: FieldSchema, managers: Manager[], self: string, force: boolean):
  { managers: Manager[]; conflicts: Conflict[]; comparison: Comparison } {
  const comparison = compare(inventory(before, schema, false), inventory(after, schema, false));
  const changed = comparison.added.union(comparison.modified);
  const conflicts: Conflict[] = [];
  const out = managers.map((m) => {
    if (identity(m) === self) return m;
    const lost = m.fields.intersection(changed);
    for (const path of lost.paths()) conflicts.push({ manager: m, path });
    return { ...m, fields: m.fields.difference(lost).difference(comparison.removed) };
  });
  if (conflicts.length > 0 && !force) return { managers, conflicts: sortConflicts(conflicts), comparison };
  return { managers: out.filter((m) => m.fields.size > 0), conflicts: [], comparison };
}

// Grouped by manager in the order of kube-apiserver's manager identifiers (the entry's JSON without
// time and fields, an applier's without apiVersion), each manager's paths in the order of its sets.
function sortConflicts(conflicts: Conflict[]): Conflict[] {
  return conflicts.sort((a, b) => {
    const ma = managerKey(a.manager);
    const mb = managerKey(b.manager);
    if (ma !== mb) return ma < mb ? -1 : 1;
    return comparePaths(a.path, b.path);
  });
}

export function managerKey(m: Manager): string {
  return JSON.stringify({
    manager: m.manager, operation: m.operation,
    ...(m.operation === 'Update' && m.apiVersion ? { apiVersion: m.apiVersion } : {}),
    ...(m.subresource ? { subresource: m.subresource } : {}),
  });
}

/** A manager as a conflict names it: "kubectl" for an applier, '"kubectl-edit" using v1' for an updater. */
export function managerName(m: Manager): string {
  const name = m.subresource ? `${JSON.stringify(m.manager)} with subresource ${JSON.stringify(m.subresource)}` : JSON.stringify(m.manager);
  return m.operation === 'Update' ? `${name} using ${m.apiVersion}` : name;
}

export interface UpdateOptions {
  fieldManager: string;
  apiVersion: string;
  schema: FieldSchema;
  now?: string;
  subresource?: string;
}

/**
 * The managers after an update (create, replace, or a patch other than apply) by `fieldManager`:
 * it owns what it changed, from now on, and takes it from the others.
 */
export function updateManagers(before: unknown, after: unknown, managers: Manager[], opts: UpdateOptions): Manager[] {
  const self: Manager = {
    manager: opts.fieldManager, operation: 'Update', apiVersion: opts.apiVersion,
    ...(opts.subresource ? { subresource: opts.subresource } : {}), fields: new FieldSet(),
  };
  const id = identity(self);
  const moved = transfer(before, after, opts.schema, managers, id, true);
  const { added, modified, removed } = moved.comparison;
  const gained = added.union(modified);
  const previous = moved.managers.find((m) => identity(m) === id);
  const rest = moved.managers.filter((m) => identity(m) !== id);
  if (gained.size === 0 && removed.size === 0) return previous ? [...rest, previous] : rest;
  const fields = (previous?.fields ?? new FieldSet()).difference(removed).union(gained);
  if (gained.size === 0) return fields.size > 0 && previous ? [...rest, { ...previous, fields }] : rest;
  return [...rest, { ...self, ...(opts.now ? { time: opts.now } : {}), fields }];
}
