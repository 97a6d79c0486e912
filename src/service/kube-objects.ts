// The objects as the Kubernetes paths serve them. Reads and writes go through ResourceService (one
// path for validation, events and "nothing changed"); what differs is the resourceVersion. Here it
// is the position of the object's last change, its last event's or its status's (status_positions:
// the reconciler's writes take positions in the log's space), as in Kubernetes one counter across
// all objects, so that a status change is a new resourceVersion, a list's resourceVersion can start
// a watch and a watch can resume from any event it sent. A precondition in that form must name the
// last change (else 409, as kube-apiserver answers) and is translated to the stream version the
// write rules check.
import type { Database } from '../adapters/store/database';
import { getObject, getSecretData, listObjects, type ObjectRow } from '../adapters/store/objects';
import { currentStatuses, firstEventAfter, lastVisibleChange, statusChangesBetween } from '../adapters/store/kube-watch-reads';
import type { KindInfo } from '../core/model/kinds';
import type { K8sObject } from '../core/model/objects';
import type { Requirement } from '../core/objects/label-selector';
import { streamKey } from '../core/objects/keys';
import { stripServerFields, type WriteMode } from '../core/objects/write';
import { unknownFieldPaths, withoutPaths } from '../core/kube/prune';
import { withServerDefaults } from '../core/kube/defaults';
import { badRequest, conflict, notFound, ServiceError } from './errors';
import { isSecret, presentSecret } from './secrets';
import type { Actor, ResourceService } from './resources';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The managedFields of a write, given the object before it (undefined on create) and the defaulted object after. */
export type Recorder = (before: K8sObject | undefined, after: K8sObject) => K8sObject;

export interface KubeWriteOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  /** compared after defaulting, so that a write which changes nothing records nothing */
  record?: Recorder;
}

export interface KubeWriteResult {
  status: 200 | 201;
  object: K8sObject;
  changed: boolean;
  warnings: string[];
}

/** The message kube-apiserver gives a stale precondition; clients (kubectl edit, apply) match on it. */
export function modifiedMessage(resource: string, name: string): string {
  return `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`;
}

export function resourceName(info: KindInfo): string {
  return info.group ? `${info.plural}.${info.group}` : info.plural;
}

/** An object with the Kubernetes resourceVersion (its last event's position). */
export function atPosition(o: K8sObject, position: number, apiVersion?: string): K8sObject {
  return withServerDefaults({ ...o, ...(apiVersion ? { apiVersion } : {}), metadata: { ...o.metadata, resourceVersion: String(position) } });
}

export class KubeObjects {
  constructor(private readonly resources: ResourceService, private readonly db: Database) {}

  private stream(info: KindInfo, namespace: string, name: string): string {
    return streamKey(info.kind, info.scope === 'Namespaced' ? namespace : '', name);
  }

  private async live(info: KindInfo, namespace: string, name: string, status = true): Promise<ObjectRow | null> {
    const row = await getObject(this.db.sql, this.stream(info, namespace, name), { status });
    return row && !row.deleted ? row : null;
  }

  private notFound(info: KindInfo, name: string): ServiceError {
    return notFound(`${resourceName(info)} "${name}" not found`);
  }

  private async present(o: K8sObject, actor: Actor, stream: string): Promise<K8sObject> {
    if (!isSecret(o)) return o;
    return presentSecret(o, actor.secretReader ? await getSecretData(this.db.sql, stream) : undefined);
  }

  async get(info: KindInfo, namespace: string, name: string, actor: Actor): Promise<K8sObject> {
    const row = await this.live(info, namespace, name);
    if (!row) throw this.notFound(info, name);
    return atPosition(await this.present(row.object, actor, row.stream), row.lastChange);
  }

  /** When the first change after a resourceVersion was made (null: none yet): how far back a watch would resume. */
  async nextChangeTime(position: number): Promise<string | null> {
    return (await firstEventAfter(this.db, position))?.time ?? null;
  }

  /** Status changes of a kind in (after, upTo], as the objects are now, at their status's resourceVersion (see statusChangesBetween). */
  async statusChanges(info: KindInfo, after: number, upTo: number, q: { namespace?: string; namespaces?: string[] }): Promise<K8sObject[]> {
    const found = await statusChangesBetween(this.db, { after, upTo, kind: info.kind, ...q });
    return found.map((f) => atPosition(f.object, f.position));
  }

  /** The statuses of these objects now, by stream. */
  statusesNow(streams: string[]): Promise<Map<string, unknown>> {
    return currentStatuses(this.db, streams);
  }

  /** The resourceVersion of "now": a watch from it sees every later change. */
  position(): Promise<number> {
    return lastVisibleChange(this.db);
  }

  /** `resourceVersion`: where a watch started from it begins (read before the list, so nothing falls between). */
  async list(info: KindInfo, q: { namespace?: string; namespaces?: string[]; selector?: Requirement[]; limit?: number; after?: { namespace: string; name: string } }, actor: Actor) {
    const resourceVersion = await lastVisibleChange(this.db);
    const res = await listObjects(this.db.sql, { kind: info.kind, ...q });
    const items = await Promise.all(res.items.map(async (o, i) =>
      atPosition(await this.present(o, actor, this.stream(info, o.metadata.namespace ?? '', o.metadata.name)), res.positions[i])));
    return { items, more: res.more, resourceVersion };
  }

  /**
   * Create (`name` undefined) or update. `metadata.resourceVersion`, when the body has one, must be
   * the object's current one: else 409, as kube-apiserver answers.
   */
  async write(info: KindInfo, namespace: string, name: string | undefined, body: unknown, mode: 'create' | 'update', actor: Actor, opts: KubeWriteOptions): Promise<KubeWriteResult> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a JSON object');
    const meta = ((body as K8sObject).metadata ?? {}) as K8sObject['metadata'];
    const objName = name ?? (typeof meta.name === 'string' ? meta.name : undefined);
    if (!objName) throw new ServiceError('invalid', 'metadata.name: Required value: name or generateName is required', [{ path: 'metadata.name', message: 'Required value: name is required', reason: 'FieldValueRequired' }]);
    let current: ObjectRow | null = null;
    let precondition: string | undefined;
    if (mode === 'update') {
      current = await this.live(info, namespace, objName);
      if (!current) throw this.notFound(info, objName);
      const rv = meta.resourceVersion;
      if (rv !== undefined && rv !== null && rv !== '') {
        if (String(rv) !== String(current.lastChange)) throw conflict(modifiedMessage(resourceName(info), objName));
      }
      // always against the version read, so a race with another writer is a 409, never a lost update
      precondition = String(current.version);
    }
    return this.commit(info, namespace, objName, body as K8sObject, mode === 'create' ? 'create' : 'replace', precondition, actor, opts);
  }

  /** Writes `object` (a whole new state) over the version `precondition` names; unknown fields per fieldValidation. */
  async commit(info: KindInfo, namespace: string, name: string, object: K8sObject, mode: WriteMode, precondition: string | undefined, actor: Actor, opts: KubeWriteOptions): Promise<KubeWriteResult> {
    const warnings: string[] = [];
    let body: K8sObject = { ...object, metadata: { ...(object.metadata ?? {}), resourceVersion: precondition } as K8sObject['metadata'] };
    if (precondition === undefined) delete body.metadata.resourceVersion;
    for (let attempt = 0; ; attempt++) {
      try {
        const stream = this.stream(info, namespace, name);
        const toWrite = opts.record ? await this.recorded(info, namespace, name, body, mode, precondition, opts.record) : body;
        const out = await this.resources.write(info, namespace, mode === 'create' ? undefined : name, toWrite, mode, actor, undefined, { dryRun: opts.dryRun });
        if (opts.dryRun && out.status === 201) return { status: 201, object: withoutResourceVersion(atPosition(out.object, 0)), changed: true, warnings };
        const row = out.position !== undefined ? null : await getObject(this.db.sql, stream);
        const position = out.position ?? row?.lastChange ?? 0;
        return { status: out.status, object: atPosition(out.object, position), changed: out.changed, warnings };
      } catch (e) {
        const unknown = e instanceof ServiceError && e.kind === 'invalid' ? unknownFieldPaths(e.errors ?? []) : [];
        if (unknown.length === 0 || attempt > 0) throw e;
        if (opts.fieldValidation === 'Strict')
          throw badRequest(`strict decoding error: ${unknown.map((p) => `unknown field "${p}"`).join(', ')}`, unknown.map((p) => ({ path: p, message: `unknown field "${p}"`, reason: 'FieldValueInvalid' })));
        if (opts.fieldValidation === 'Warn') warnings.push(...unknown.map((p) => `unknown field "${p}"`));
        body = withoutPaths(body, unknown);
      }
    }
  }

  /** The body defaulted as the write will store it, with its managedFields brought up to date. */
  private async recorded(info: KindInfo, namespace: string, name: string, body: K8sObject, mode: WriteMode, precondition: string | undefined, record: Recorder): Promise<K8sObject> {
    const { object } = this.resources.prepare(info, namespace, mode === 'create' ? undefined : name, body);
    const current = await this.live(info, namespace, name, false);
    const defaulted = this.resources.validated(info, object, current?.object);
    const out = record(current?.object, defaulted);
    return { ...out, metadata: { ...out.metadata, ...(precondition !== undefined ? { resourceVersion: precondition } : {}) } };
  }

  /**
   * A patch: `patched` turns the current object (status left out, Secret data in) into the new one;
   * written over the version read, and recomputed when another writer got there first.
   * `createIfMissing`: server-side apply creates.
   */
  async patch(info: KindInfo, namespace: string, name: string, patched: (current: K8sObject | undefined) => K8sObject, actor: Actor, opts: KubeWriteOptions & { createIfMissing?: boolean }): Promise<KubeWriteResult> {
    for (let attempt = 0; ; attempt++) {
      const row = await this.live(info, namespace, name, false);
      if (!row && !opts.createIfMissing) throw this.notFound(info, name);
      let base: K8sObject | undefined;
      if (row) {
        base = row.object;
        if (isSecret(base)) base = presentSecret(base, await getSecretData(this.db.sql, row.stream));
        // as stored (the defaults shown to readers are not written back by a patch)
        base = { ...base, metadata: { ...base.metadata, resourceVersion: String(row.lastChange) } };
      }
      const next = patched(base);
      const rv = next.metadata?.resourceVersion;
      if (row && rv !== undefined && rv !== null && rv !== '' && String(rv) !== String(row.lastChange))
        throw conflict(modifiedMessage(resourceName(info), name));
      const object = stripServerFields(next);
      try {
        return await this.commit(info, namespace, name, object, row ? 'replace' : 'create', row ? String(row.version) : undefined, actor, opts);
      } catch (e) {
        // another writer moved the object between the read and the write: patch the newer one (a
        // resourceVersion the patch itself set then fails the check above)
        if (e instanceof ServiceError && (e.kind === 'conflict' || e.kind === 'already-exists') && attempt < 8) continue;
        throw e;
      }
    }
  }

  async remove(info: KindInfo, namespace: string, name: string, actor: Actor, pre: { resourceVersion?: string; uid?: string }, dryRun: boolean): Promise<K8sObject> {
    const row = await this.live(info, namespace, name, false);
    if (!row) throw this.notFound(info, name);
    if ((pre.resourceVersion !== undefined && pre.resourceVersion !== String(row.lastChange)) || (pre.uid !== undefined && pre.uid !== row.object.metadata.uid))
      throw conflict(`Operation cannot be fulfilled on ${resourceName(info)} "${name}": Precondition failed: ${pre.uid !== undefined ? `UID in precondition: ${pre.uid}, UID in object meta: ${row.object.metadata.uid}` : `ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${row.lastChange}`}`);
    if (dryRun) return atPosition(presentSecret(row.object, undefined), row.lastChange);
    const gone = await this.resources.remove(info, namespace, name, actor, `"${row.version}"`);
    return atPosition(gone, row.lastChange);
  }
}

/** A dry-run create answers as kube-apiserver's does: uid and creationTimestamp filled in, no resourceVersion (nothing was stored). */
function withoutResourceVersion(o: K8sObject): K8sObject {
  const { resourceVersion: _rv, ...metadata } = o.metadata;
  return { ...o, metadata: metadata as K8sObject['metadata'] };
}
