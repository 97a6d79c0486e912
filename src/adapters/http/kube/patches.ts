// Turns the current object and a patch into the new object, by patch type, with the engines of
// src/core/kube-patch; and the managedFields entry of every other write.
import type { K8sObject } from '../../../core/model/objects';
import { applyPatch, APPLY_PATCH, defaultFieldManager, recordUpdate } from '../../../core/kube-patch';
import { HttpError } from '../problem';
import type { PatchType } from './body';

export interface PatchRequest {
  type: PatchType;
  body: unknown;
  kind: string;
  apiVersion: string;
  fieldManager?: string;
  force?: boolean;
}

/** RFC 3339 to the second, as managedFields times are written */
export function managedTime(now = new Date()): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Whether a patch of this type may create the object (server-side apply does). */
export function createsMissing(type: PatchType): boolean {
  return type === APPLY_PATCH;
}

export function applyPatchTo(current: K8sObject | undefined, p: PatchRequest): K8sObject {
  const out = applyPatch(current, p.body, p.type, { fieldManager: p.fieldManager, force: p.force, kind: p.kind, apiVersion: p.apiVersion, now: managedTime() });
  if (out.ok) return out.object as K8sObject;
  throw new HttpError(out.status, out.message, (out.causes ?? []).map((c) => ({ path: c.field, message: c.message, ...(c.reason ? { reason: c.reason as never } : {}) })));
}

/** The managedFields of a create or update (`before` undefined on create). */
export function recordWrite(before: K8sObject | undefined, after: K8sObject, fieldManager: string, kind: string, apiVersion: string): K8sObject {
  try {
    return recordUpdate(before, after, { fieldManager, kind, apiVersion, now: managedTime() }) as K8sObject;
  } catch {
    // malformed managedFields sent by the client: kept as sent, validation has the last word
    return after;
  }
}

export function fieldManagerOf(query: unknown, userAgent: string | undefined): string {
  return typeof query === 'string' && query ? query : defaultFieldManager(userAgent);
}
