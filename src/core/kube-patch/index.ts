// The patch engines of the Kubernetes API paths, pure functions over plain objects:
//   application/json-patch+json            RFC 6902
//   application/merge-patch+json           RFC 7386
//   application/strategic-merge-patch+json the built-in kinds only (CRD kinds answer 415, as upstream)
//   application/apply-patch+yaml           server-side apply, with managedFields
// and recordUpdate, the managedFields entry of every other write.
import { mergePatch } from '../objects/merge-patch';
import { parseYamlChunk } from '../apply/manifest';
import { MAX_BODY_DEPTH, nestedDeeperThan } from '../validate/storable';
import { applyJsonPatch, readJsonPatch } from './json-patch';
import { clone, isObject, type JsonObject } from './json';
import { badRequest, invalid, PatchError, type PatchResult } from './result';
import { BUILT_IN_KINDS, schemaOf } from './schema';
import { serverSideApply } from './server-side-apply';
import { strategicMergePatch } from './strategic-merge';

export type { PatchCause, PatchResult } from './result';
export { recordUpdate, defaultFieldManager, type UpdateRecordOptions } from './record-update';
export { LAST_APPLIED, BEFORE_FIRST_APPLY } from './server-side-apply';
export { markersOf, type FieldMarkers } from './schema';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

export interface PatchOptions {
  fieldManager?: string;
  force?: boolean;
  kind: string;
  apiVersion: string;
  /** RFC 3339, the time of a managedFields entry an apply writes; left out when absent */
  now?: string;
}

/** The patch media types a kind accepts, as kube-apiserver lists them in a 415. */
export function patchTypesOf(kind: string): string[] {
  return BUILT_IN_KINDS.has(kind) ? [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH] : [JSON_PATCH, MERGE_PATCH, APPLY_PATCH];
}

/**
 * Applies a PATCH body to the current object (undefined when there is none: only an apply creates).
 * `body` is the raw body (a string or bytes) or its parsed value. The result is the object to write,
 * not yet validated or defaulted; it still carries the current resourceVersion unless the patch set
 * one, which then stands as a precondition.
 */
export function applyPatch(current: object | undefined, body: unknown, contentType: string, opts: PatchOptions): PatchResult {
  try {
    return patch(current as JsonObject | undefined, body, mediaType(contentType), opts);
  } catch (e) {
    if (e instanceof PatchError) return e.failure;
    throw e;
  }
}

function mediaType(contentType: string): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

function patch(current: JsonObject | undefined, body: unknown, type: string, opts: PatchOptions): PatchResult {
  const accepted = patchTypesOf(opts.kind);
  if (!accepted.includes(type))
    return { ok: false, status: 415, reason: 'UnsupportedMediaType', message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}` };
  if (type === APPLY_PATCH) return serverSideApply(current, decodeApply(body), opts);
  if (opts.force) return invalid('force: Invalid value: true: may not be specified for non-apply patch', [{ field: 'force', message: 'may not be specified for non-apply patch', reason: 'FieldValueInvalid' }]);
  if (!current) return badRequest('there is no object to patch: only server-side apply (application/apply-patch+yaml) creates one');
  const base: JsonObject = { ...clone(current), apiVersion: opts.apiVersion };
  const value = decodeJson(body);
  let out: unknown;
  if (type === JSON_PATCH) out = applyJsonPatch(base, readJsonPatch(value));
  else if (type === MERGE_PATCH) {
    if (!isObject(value)) return badRequest('a JSON merge patch must be a JSON object');
    out = mergePatch(base, value);
  } else out = strategicMergePatch(base, value, schemaOf(opts.kind));
  if (!isObject(out)) return badRequest('the patched object is not a JSON object');
  if (out.kind !== opts.kind) return badRequest(`the kind in the patched object (${String(out.kind ?? '')}) does not match the expected kind (${opts.kind})`);
  if (out.apiVersion !== opts.apiVersion)
    return badRequest(`the API version in the patched object (${String(out.apiVersion ?? '')}) does not match the expected API version (${opts.apiVersion})`);
  return { ok: true, object: out };
}

function text(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder('utf-8', { fatal: false }).decode(body);
  return undefined;
}

function decodeJson(body: unknown): unknown {
  const t = text(body);
  let value = body;
  if (t !== undefined) {
    if (t.trim() === '') throw new PatchError(badRequest('the patch body is empty'));
    try {
      value = JSON.parse(t);
    } catch (e) {
      throw new PatchError(badRequest(`the patch body is not valid JSON: ${(e as Error).message}`));
    }
  }
  if (nestedDeeperThan(value, MAX_BODY_DEPTH)) throw new PatchError(badRequest(`the patch body is nested more than ${MAX_BODY_DEPTH} levels deep`));
  return value;
}

const ONE_OBJECT = badRequest('an applied configuration is exactly one object (not a list, not several documents)');

// An applied configuration is one YAML document (JSON is YAML), read with the same safe YAML
// reader as apply bodies: core schema, unique keys, bounded aliases.
function decodeApply(body: unknown): unknown {
  const t = text(body);
  if (t === undefined) {
    if (nestedDeeperThan(body, MAX_BODY_DEPTH)) throw new PatchError(badRequest(`the applied configuration is nested more than ${MAX_BODY_DEPTH} levels deep`));
    if (isObject(body) && typeof body.kind === 'string' && body.kind.endsWith('List') && Array.isArray(body.items)) throw new PatchError(ONE_OBJECT);
    return body;
  }
  if (t.trim() === '') throw new PatchError(badRequest('the applied configuration is empty'));
  // kubectl sends JSON; JSON.parse reads it in a fraction of the YAML reader's time
  if (t.trimStart().startsWith('{')) {
    try {
      return decodeApply(JSON.parse(t));
    } catch (e) {
      if (e instanceof PatchError) throw e;
    }
  }
  const r = parseYamlChunk(t);
  if (r.problem) throw new PatchError(badRequest(`the applied configuration could not be read: ${r.problem.reason}`));
  if (r.entries.length !== 1 || r.entries[0].item !== undefined) throw new PatchError(ONE_OBJECT);
  return r.entries[0].object;
}
