// The managedFields entry kube-apiserver records for every write that is not an apply (create,
// update, JSON/merge/strategic patch): operation Update, the manager's name, the apiVersion of the
// request, and the fields the write changed, taken from whoever owned them. A later server-side
// apply by someone else then conflicts on those fields, as it would against kube-apiserver.
import { deepEqual, isObject, type JsonObject } from './json';
import { readManagers, updateManagers, withManagers, type Manager } from './managed-fields';
import { PatchError } from './result';
import { schemaOf } from './schema';
import { BEFORE_FIRST_APPLY } from './server-side-apply';

export interface UpdateRecordOptions {
  /** ?fieldManager=, else defaultFieldManager(User-Agent) */
  fieldManager: string;
  kind: string;
  /** the apiVersion of the request */
  apiVersion: string;
  /** RFC 3339; the core has no clock */
  now?: string;
  /** "status" for a write to the status subresource */
  subresource?: string;
}

/**
 * `after` with metadata.managedFields brought up to date for a write from `before` (undefined on
 * create). A write that sets managedFields itself (to anything but what it read) sets them, as on
 * kube-apiserver; `[{}]` clears them. An object with none yet (written before managedFields were
 * kept) first has every field it holds given to "before-first-apply", as an apply would.
 */
export function recordUpdate(before: object | undefined, after: object, opts: UpdateRecordOptions): object {
  const schema = schemaOf(opts.kind);
  const prior = safeManagers(before) ?? [];
  const sent = isObject(after) && isObject(after.metadata) ? after.metadata.managedFields : undefined;
  const priorSent = isObject(before) && isObject(before.metadata) ? before.metadata.managedFields : undefined;
  let managers: Manager[] = prior;
  if (Array.isArray(sent) && !deepEqual(sent, priorSent)) {
    if (sent.length === 1 && isObject(sent[0]) && Object.keys(sent[0]).length === 0) return withManagers(after as JsonObject, []);
    managers = safeManagers(after) ?? prior;
  }
  if (before && managers.length === 0) {
    // a write that changes nothing leaves such an object exactly as it was
    if (updateManagers(before, after, [], { ...opts, schema }).length === 0) return after;
    managers = updateManagers({}, before, [], { fieldManager: BEFORE_FIRST_APPLY, apiVersion: String((before as JsonObject).apiVersion ?? opts.apiVersion), schema, now: opts.now });
  }
  return withManagers(after as JsonObject, updateManagers(before ?? {}, after, managers, { ...opts, schema }));
}

function safeManagers(obj: unknown): Manager[] | undefined {
  try {
    return readManagers(obj);
  } catch (e) {
    if (e instanceof PatchError) return undefined;
    throw e;
  }
}

/** kube-apiserver's field manager when a request names none: the User-Agent up to its first "/". */
export function defaultFieldManager(userAgent: string | undefined): string {
  const name = (userAgent ?? '').split('/')[0].trim();
  return (name === '' ? 'unknown' : name).slice(0, 128);
}
