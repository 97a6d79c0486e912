// Turns the current object and a patch into the new object, by patch type.
import type { K8sObject } from '../../../core/model/objects';
import { mergePatch } from '../../../core/objects/merge-patch';
import { stripServerFields } from '../../../core/objects/write';
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

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a patch of this type may create the object (server-side apply does). */
export function createsMissing(type: PatchType): boolean {
  return type === 'application/apply-patch+yaml';
}

export function applyPatchTo(current: K8sObject | undefined, p: PatchRequest): K8sObject {
  switch (p.type) {
    case 'application/merge-patch+json': {
      if (!isMap(p.body)) throw new HttpError(400, 'a merge patch must be a JSON object');
      // the precondition a patch may carry stays visible to the caller; server fields do not merge
      const rv = (p.body.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
      const merged = mergePatch(current ? withoutStatus(current) : {}, stripServerFields(p.body as K8sObject)) as K8sObject;
      return rv === undefined ? merged : { ...merged, metadata: { ...merged.metadata, resourceVersion: String(rv) } };
    }
    default:
      throw new HttpError(415, `the patch type ${p.type} is not supported yet; use application/merge-patch+json`);
  }
}

function withoutStatus(o: K8sObject): K8sObject {
  const { status: _s, ...rest } = o;
  return { ...rest, metadata: { ...rest.metadata, resourceVersion: undefined } as K8sObject['metadata'] };
}
