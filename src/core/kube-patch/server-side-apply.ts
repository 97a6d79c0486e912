// Server-side apply (application/apply-patch+yaml) as kube-apiserver's field manager does it: the
// applied configuration is merged into the live object along the kind's list and map semantics,
// the applier comes to own exactly the fields it applied, fields it applied last time and no
// longer does are removed unless another manager owns them, and a field another manager owns
// whose value the apply would change is a conflict (409, every field and manager named) unless
// `force` takes it over. Values are compared as they will be stored, with the server's defaults:
// managers applying the same value share the field, whatever defaults each one wrote out.
import { FieldSet, keyOf, pathString, type FieldPath } from './field-set';
import { canonical, inventory, ownedBy } from './inventory';
import { clone, deepEqual, define, has, isObject, type JsonObject } from './json';
import { identity, managerKey, managerName, readManagers, transfer, updateManagers, withManagers, type Conflict, type Manager } from './managed-fields';
import { mergeApplied, removePath } from './apply-merge';
import { badRequest, type PatchResult } from './result';
import { schemaOf, type FieldSchema } from './schema';
import { applyDefaults } from '../validate';

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** The manager kubectl apply --server-side uses; kube-apiserver keeps its client-side annotation in step. */
const KUBECTL = 'kubectl';
/** Who owns the fields of an object that had no managedFields when it was first applied. */
export const BEFORE_FIRST_APPLY = 'before-first-apply';

export interface ApplyOptions {
  fieldManager?: string;
  force?: boolean;
  kind: string;
  apiVersion: string;
  /** RFC 3339, the time written into the applier's entry (the core has no clock) */
  now?: string;
}

// What an applied configuration may not set: the server's own metadata, and status, which only
// the control plane writes.
const SERVER_METADATA = ['uid', 'generation', 'creationTimestamp', 'selfLink', 'managedFields', 'resourceVersion'];

export function serverSideApply(current: JsonObject | undefined, applied: unknown, opts: ApplyOptions): PatchResult {
  const manager = opts.fieldManager;
  if (manager === undefined || manager === '') return badRequest('fieldManager is required for apply requests (application/apply-patch+yaml)');
  if (!isObject(applied)) return badRequest('an applied configuration must be one object');
  if (applied.apiVersion !== opts.apiVersion)
    return badRequest(`the API version in the data (${String(applied.apiVersion ?? '')}) does not match the expected API version (${opts.apiVersion})`);
  if (applied.kind !== opts.kind) return badRequest(`the kind in the data (${String(applied.kind ?? '')}) does not match the expected kind (${opts.kind})`);
  if (applied.metadata !== undefined && applied.metadata !== null && !isObject(applied.metadata)) return badRequest('metadata must be an object');
  const appliedMeta = isObject(applied.metadata) ? applied.metadata : {};
  const sentManaged = appliedMeta.managedFields;
  if (sentManaged !== undefined && sentManaged !== null && !(Array.isArray(sentManaged) && sentManaged.length === 0))
    return badRequest('metadata.managedFields must be nil in an applied configuration');

  const schema = schemaOf(opts.kind);
  const config = configOf(applied);
  const live: JsonObject = current ? { ...clone(current), apiVersion: opts.apiVersion } : { apiVersion: opts.apiVersion, kind: opts.kind, metadata: {} };
  let managers = readManagers(current);
  if (current && managers.length === 0)
    managers = updateManagers({}, current, [], { fieldManager: BEFORE_FIRST_APPLY, apiVersion: String(current.apiVersion ?? opts.apiVersion), schema, now: opts.now });

  const appliedSet = ownedBy(inventory(config, schema, true));
  const self: Manager = { manager, operation: 'Apply', apiVersion: opts.apiVersion, fields: appliedSet };
  const selfId = identity(self);
  const previous = managers.find((m) => identity(m) === selfId);
  const others = managers.filter((m) => identity(m) !== selfId);
  const withSelf = [...others, { ...self, ...(previous?.time ? { time: previous.time } : {}) }];

  const pruned = mergeApplied(live, config, schema) as JsonObject;
  if (previous) prune(pruned, previous.fields, withSelf, schema);
  omitEmptyMetadata(pruned);
  // compared as it will be stored: a field left out that the server defaults (a parentRef's group
  // and kind, a backendRef's weight, a path match's type) is no change, so another manager applying
  // the same manifest shares the fields rather than conflicting over the defaults
  const merged = asStored(pruned);

  const objectChanged = !deepEqual(withoutManaged(live), withoutManaged(merged));
  // an apply that changes no value moves no ownership: the common re-apply skips the comparison
  let moved = !objectChanged ? { managers: withSelf, conflicts: [] as Conflict[] } : transfer(live, merged, schema, withSelf, selfId, opts.force === true);
  if (moved.conflicts.length > 0) {
    const allowed = manager === KUBECTL ? allowedByLastApplied(live, opts.apiVersion, schema) : new FieldSet();
    const remaining = moved.conflicts.filter((c) => !allowed.has(c.path));
    if (remaining.length > 0) return conflictFailure(remaining);
    moved = transfer(live, merged, schema, withSelf, selfId, true);
  }

  const hasLastApplied = isObject(live.metadata) && isObject(live.metadata.annotations) && typeof live.metadata.annotations[LAST_APPLIED] === 'string';
  if (current && !objectChanged && previous?.fields.equals(appliedSet) && !(manager === KUBECTL && hasLastApplied) && appliedMeta.resourceVersion == null)
    return { ok: true, object: clone(current) };
  // the applier's time is the time it last changed the object (kube-apiserver's managedFieldsUpdater):
  // an apply that only shares or gives up fields keeps the time it had, or has none yet
  const result = moved.managers.map((m) => (identity(m) === selfId && objectChanged && opts.now ? { ...m, time: opts.now } : m));

  if (manager === KUBECTL) keepLastAppliedInStep(merged, applied);
  const out = withManagers(merged, result);
  // A resourceVersion in the applied configuration is a precondition, as in an update body.
  if (appliedMeta.resourceVersion !== undefined && appliedMeta.resourceVersion !== null && isObject(out.metadata))
    define(out.metadata, 'resourceVersion', appliedMeta.resourceVersion);
  if (current && deepEqual(out, { ...current, apiVersion: opts.apiVersion })) return { ok: true, object: clone(current) };
  return { ok: true, object: out };
}

/**
 * The object with the server's defaults, as validation will store it. A Secret's stringData stays
 * as applied: the server folds it into data only after the apply, so applying it is a change of
 * stringData (which no one else owns), never a conflict over data.
 */
function asStored(obj: JsonObject): JsonObject {
  if (!has(obj, 'stringData')) return applyDefaults(obj);
  const { stringData, ...rest } = obj;
  return { ...applyDefaults(rest), stringData };
}

/** The applied configuration as it merges: no nulls (an unset field), no status, no server metadata. */
function configOf(applied: JsonObject): JsonObject {
  const config = dropNulls(applied) as JsonObject;
  delete config.status;
  if (isObject(config.metadata)) for (const k of SERVER_METADATA) delete config.metadata[k];
  return config;
}

function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) if (v[k] !== null) define(out, k, dropNulls(v[k]));
    return out;
  }
  return v;
}

// ObjectMeta's maps and lists are omitted when empty (Go's omitempty), so that applying
// `labels: {}` leaves no trace, and applying it twice is the same as once.
const OMIT_EMPTY = ['labels', 'annotations', 'finalizers', 'ownerReferences'];

function omitEmptyMetadata(obj: JsonObject): void {
  if (!isObject(obj.metadata)) return;
  for (const k of OMIT_EMPTY) {
    const v = obj.metadata[k];
    if ((Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0)) delete obj.metadata[k];
  }
}

function withoutManaged(obj: JsonObject): JsonObject {
  const copy = clone(obj);
  if (isObject(copy.metadata)) delete copy.metadata.managedFields;
  return copy;
}

// Removes what the applier applied last time and not now, unless some manager (the applier
// included) still owns it or something below it. A field of a struct counts as applied when
// something below it was, so that a struct no one owns anything of goes too; top-level fields
// (metadata, spec) always stay.
function prune(merged: JsonObject, last: FieldSet, managers: Manager[], schema: FieldSchema): void {
  const owned = managers.reduce((s, m) => s.union(m.fields), new FieldSet()).withAncestors();
  const candidates = new FieldSet();
  for (const p of last.paths()) {
    candidates.add(p);
    for (let n = 2; n < p.length; n++) if (p[n - 1].startsWith('f:')) candidates.add(p.slice(0, n));
  }
  const gone = candidates.paths().filter((p) => !owned.has(p)).sort((a, b) => a.length - b.length);
  for (const p of gone) removePath(merged, p, schema);
}

// kubectl moving from client-side to server-side apply (kube-apiserver's lastAppliedManager): a
// conflict on a field the last-applied-configuration annotation holds is no conflict where the live
// object still has the value the annotation gives it, since the same hands set it. The annotation
// is compared as it was stored, with the server's defaults (which it never holds) filled in. A field
// someone else has changed since is a conflict, as kubectl's documentation warns.
function allowedByLastApplied(live: JsonObject, apiVersion: string, schema: FieldSchema): FieldSet {
  const annotations = isObject(live.metadata) && isObject(live.metadata.annotations) ? live.metadata.annotations : {};
  const text = annotations[LAST_APPLIED];
  if (typeof text !== 'string' || text === '') return new FieldSet();
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return new FieldSet();
  }
  if (!isObject(last) || last.apiVersion !== apiVersion || last.kind !== live.kind) return new FieldSet();
  const lastConfig = configOf(last);
  const stored = inventory(asStored(lastConfig), schema, false);
  const liveInv = inventory(live, schema, false);
  return FieldSet.of([...inventory(lastConfig, schema, false).values()]
    .filter((e) => e.kind !== 'map')
    .filter((e) => {
      const there = liveInv.get(keyOf(e.path));
      return there !== undefined && (e.kind !== 'leaf' || there.value === stored.get(keyOf(e.path))?.value);
    })
    .map((e) => e.path));
}

// When the object carries the client-side annotation, server-side apply by kubectl rewrites it to
// the configuration just applied, so that a later client-side apply diffs against it.
function keepLastAppliedInStep(merged: JsonObject, applied: JsonObject): void {
  const annotations = isObject(merged.metadata) && isObject(merged.metadata.annotations) ? merged.metadata.annotations : undefined;
  if (!annotations || typeof annotations[LAST_APPLIED] !== 'string' || annotations[LAST_APPLIED] === '') return;
  const copy = clone(applied);
  // as kube-apiserver builds it: the annotation itself taken out, an annotations map left empty kept
  if (isObject(copy.metadata) && isObject(copy.metadata.annotations)) delete copy.metadata.annotations[LAST_APPLIED];
  define(annotations, LAST_APPLIED, goJson(copy));
}

// The annotation as kube-apiserver and kubectl write it (Go's encoding/json): keys sorted, <, > and &
// escaped, a newline at the end; so that the same configuration gives the same text whoever wrote it.
function goJson(v: unknown): string {
  return `${canonical(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

function conflictFailure(conflicts: Conflict[]): PatchResult {
  const causes = conflicts.map((c) => ({ field: pathString(c.path), message: `conflict with ${managerName(c.manager)}`, reason: 'FieldManagerConflict' }));
  let message: string;
  if (conflicts.length === 1) message = `Apply failed with 1 conflict: conflict with ${managerName(conflicts[0].manager)}: ${pathString(conflicts[0].path)}`;
  else {
    const byManager = new Map<string, { name: string; paths: FieldPath[] }>();
    for (const c of conflicts) {
      const key = managerKey(c.manager);
      const group = byManager.get(key) ?? { name: managerName(c.manager), paths: [] };
      group.paths.push(c.path);
      byManager.set(key, group);
    }
    const lines = [...byManager.keys()].sort().flatMap((key) => {
      const { name, paths } = byManager.get(key)!;
      return [`conflicts with ${name}:`, ...paths.map((p) => `- ${pathString(p)}`)];
    });
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return { ok: false, status: 409, reason: 'Conflict', message, causes };
}

