// Writes and reads of single objects: validation, the write rules of src/core/objects, and the store.
import { randomUUID } from 'node:crypto';
import type { Database } from '../adapters/store/database';
import { touchedBy } from '../core/deps';
import { appendEvents, readStream, readStreamVersion, VersionConflictError, type AppendEvent } from '../adapters/store/eventlog';
import { getObject, getObjects, getSecretData, listObjects, type ObjectRow } from '../adapters/store/objects';
import type { KindInfo } from '../core/model/kinds';
import type { K8sObject } from '../core/model/objects';
import { streamKey } from '../core/objects/keys';
import { decideDelete, decideWrite, stripServerFields, type Decision, type WriteMode } from '../core/objects/write';
import { mergePatch } from '../core/objects/merge-patch';
import type { Requirement } from '../core/objects/label-selector';
import { badRequest, conflict, fromDecision, invalid, isConflict, notFound, ServiceError } from './errors';
import { validate } from './validation';
import { unstorableStrings } from '../core/validate/storable';
import { foldStringData, isSecret, presentSecret, splitSecret } from './secrets';
import { Batcher, type Settled } from '../adapters/store/batcher';

export interface Actor {
  name: string;
  /** may read Secret data */
  secretReader: boolean;
}

/** `dryRun`: decide and answer as the write would, and write nothing (no event, no Secret data, no notice). */
export interface WriteOptions {
  dryRun?: boolean;
}

export interface WriteResult {
  status: 200 | 201;
  object: K8sObject;
  changed: boolean;
  position?: number;
}

/** positions appended, and the kind and type of each event */
export type AppendListener = (positions: number[], events?: { kind: string; type: string }[]) => void;

const NAMESPACE_LABEL = 'kubernetes.io/metadata.name';

export class ResourceService {
  private listeners: AppendListener[] = [];
  /** concurrent writes share a statement and a commit */
  private readonly appends = new Batcher<AppendEvent[], { position: number }[]>((groups) => this.appendGroups(groups));
  /** and concurrent reads of single objects a statement */
  private readonly reads = new Batcher<string, ObjectRow | null>(async (streams) => {
    const found = await getObjects(this.db.sql, [...new Set(streams)]);
    return streams.map((s) => ({ ok: true, value: found.get(s) ?? null }));
  });

  constructor(private readonly db: Database, private readonly clock: () => Date = () => new Date()) {}

  onAppend(fn: AppendListener): void {
    this.listeners.push(fn);
  }

  notifyAppended(positions: number[], events?: { kind: string; type: string }[]): void {
    for (const fn of this.listeners) fn(positions, events);
  }

  now(): string {
    return this.clock().toISOString();
  }

  /** Checks a body against the path and turns it into the object to validate. */
  prepare(info: KindInfo, namespace: string | undefined, name: string | undefined, body: unknown): { object: K8sObject; precondition?: string } {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a JSON object');
    const obj = body as K8sObject;
    // before the object's name reaches a query
    const unstorable = unstorableStrings(body);
    if (unstorable.length) throw invalid(`the body holds strings that cannot be stored: ${unstorable.map((e) => `${e.path}: ${e.message}`).join('; ')}`, unstorable);
    if (obj.kind !== undefined && obj.kind !== info.kind)
      throw badRequest(`the body's kind "${String(obj.kind)}" does not match the path, which serves ${info.kind}`);
    if (obj.apiVersion !== undefined && !Object.hasOwn(info.versions, String(obj.apiVersion)))
      throw badRequest(`apiVersion "${String(obj.apiVersion)}" is not served for ${info.kind}; use one of ${Object.keys(info.versions).join(', ')}`);
    const metadata = obj.metadata ?? {};
    if (typeof metadata !== 'object' || Array.isArray(metadata)) throw badRequest('metadata must be an object');
    if (name !== undefined && metadata.name !== undefined && metadata.name !== name)
      throw badRequest(`metadata.name "${String(metadata.name)}" does not match the name in the path "${name}"`);
    if (info.scope === 'Namespaced' && metadata.namespace !== undefined && metadata.namespace !== namespace)
      throw badRequest(`metadata.namespace "${String(metadata.namespace)}" does not match the namespace in the path "${namespace}"`);
    if (info.scope === 'Cluster' && metadata.namespace !== undefined && metadata.namespace !== '')
      throw badRequest(`${info.kind} is cluster-scoped: metadata.namespace must not be set`);
    const rv = metadata.resourceVersion;
    const precondition = rv === undefined || rv === null || rv === '' ? undefined : String(rv);
    const m: Record<string, unknown> = { ...metadata, name: metadata.name ?? name };
    if (info.scope === 'Namespaced') m.namespace = namespace;
    else delete m.namespace;
    let object: K8sObject = stripServerFields({ ...obj, apiVersion: obj.apiVersion ?? info.preferredVersion, kind: info.kind, metadata: m as K8sObject['metadata'] });
    if (isSecret(object)) object = foldStringData(object);
    return { object, precondition };
  }

  /** Validates, then applies server-owned normalisation (the Namespace name label). */
  validated(info: KindInfo, object: K8sObject, old?: K8sObject): K8sObject {
    const { object: valid, errors } = validate(object, old);
    if (errors.length) throw invalid(`${info.kind} "${object.metadata?.name ?? ''}" is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
    return normalise(info, valid);
  }

  async write(info: KindInfo, namespace: string, name: string | undefined, body: unknown, mode: WriteMode, actor: Actor, ifMatch?: string, opts: WriteOptions = {}): Promise<WriteResult> {
    const { object, precondition } = this.prepare(info, namespace, name, body);
    const pre = reconcilePreconditions(precondition, ifMatch);
    const objName = String(object.metadata.name ?? '');
    const stream = streamKey(info.kind, info.scope === 'Namespaced' ? namespace : '', objName);
    // Without a precondition the write is "last one wins", as in Kubernetes: a lost race re-reads and retries.
    for (let attempt = 0; ; attempt++) {
      const current = objName ? await this.reads.submit(stream) : null;
      const incoming = this.validated(info, object, current && !current.deleted ? current.object : undefined);
      try {
        return await this.commit(info, stream, incoming, mode, pre, actor, current, opts);
      } catch (e) {
        if (!(e instanceof ConflictRetry) || pre !== undefined || mode === 'create' || attempt >= 8) throw unwrapRetry(e);
      }
    }
  }

  async patch(info: KindInfo, namespace: string, name: string, patch: unknown, actor: Actor, ifMatch?: string, opts: WriteOptions = {}): Promise<WriteResult> {
    if (!patch || typeof patch !== 'object' || Array.isArray(patch)) throw badRequest('a merge patch must be a JSON object');
    const stream = streamKey(info.kind, info.scope === 'Namespaced' ? namespace : '', name);
    const current = await getObject(this.db.sql, stream);
    if (!current || current.deleted) throw notFound(`${info.kind} "${name}" not found`);
    let base = withoutStatus(current.object);
    if (isSecret(base)) base = presentSecret(base, await getSecretData(this.db.sql, stream));
    const merged = mergePatch(stripServerFields(base), stripServerFields(patch as K8sObject)) as K8sObject;
    const rv = (patch as K8sObject).metadata?.resourceVersion;
    const { object } = this.prepare(info, namespace, name, merged);
    const pre = reconcilePreconditions(rv === undefined || rv === null ? undefined : String(rv), ifMatch);
    const incoming = this.validated(info, object, current.object);
    try {
      return await this.commit(info, stream, incoming, 'patch', pre, actor, current, opts);
    } catch (e) {
      // a merge patch without a precondition applies to whatever is newest
      if (e instanceof ConflictRetry && pre === undefined) return this.patch(info, namespace, name, patch, actor, ifMatch, opts);
      throw unwrapRetry(e);
    }
  }

  /** `current` carries its status; the rules compare without it. */
  private async commit(info: KindInfo, stream: string, incoming: K8sObject, mode: WriteMode, precondition: string | undefined, actor: Actor, withStatus: Awaited<ReturnType<typeof getObject>>, opts: WriteOptions): Promise<WriteResult> {
    const status = withStatus && !withStatus.deleted ? withStatus.object.status : undefined;
    const current = withStatus ? { ...withStatus, object: withoutStatus(withStatus.object) } : null;
    let secretData: Record<string, string> | undefined;
    let toDecide = incoming;
    if (isSecret(incoming)) {
      const split = splitSecret(incoming);
      toDecide = split.object;
      secretData = split.data;
    }
    const decision = decideWrite({ current, incoming: toDecide, mode, precondition, now: this.now(), newUid: randomUUID() });
    if (decision.outcome === 'reject') throw fromDecision(decision);
    if (decision.outcome === 'unchanged') {
      return { status: 200, object: this.present(withStatus!.object, secretData, actor), changed: false };
    }
    const out = status ? { ...decision.object, status } : decision.object;
    const answer: WriteResult = { status: decision.type === 'Created' ? 201 : 200, object: this.present(out, secretData, actor), changed: true };
    if (opts.dryRun) return answer;
    const event = toEvent(info, stream, decision, actor, this.now(), current && !current.deleted ? current.object : undefined);
    if (secretData) event.secret = { op: 'put', data: secretData, digest: String(decision.object.dataDigest) };
    let appended: { position: number };
    try {
      [appended] = await this.append([event]);
    } catch (e) {
      if (isConflict(e)) throw new ConflictRetry(e);
      throw e;
    }
    return { ...answer, position: appended.position };
  }

  async remove(info: KindInfo, namespace: string, name: string, actor: Actor, ifMatch?: string, opts: WriteOptions = {}): Promise<K8sObject> {
    const stream = streamKey(info.kind, info.scope === 'Namespaced' ? namespace : '', name);
    const current = await getObject(this.db.sql, stream, { status: false });
    const decision = decideDelete({ current, kind: info.kind, name, precondition: parseIfMatch(ifMatch) });
    if (decision.outcome === 'reject') throw fromDecision(decision);
    if (decision.outcome !== 'append') throw new Error(`a delete decided ${decision.outcome}`);
    if (opts.dryRun) return this.present(decision.object, undefined, actor);
    const event = toEvent(info, stream, decision, actor, this.now(), current?.object);
    if (isSecret(decision.object)) event.secret = { op: 'delete' };
    await this.append([event]);
    return this.present(decision.object, undefined, actor);
  }

  /** Appends one write's events (atomically; with other writes' in the same statement under load). */
  append(events: AppendEvent[]): Promise<{ position: number }[]> {
    return this.appends.submit(events);
  }

  private async appendNow(events: AppendEvent[]): Promise<{ position: number }[]> {
    try {
      const out = await appendEvents(this.db.sql, events);
      this.notifyAppended(out.map((o) => o.position), events);
      return out;
    } catch (err) {
      if (err instanceof VersionConflictError) throw conflict(`${err.message}: the object was modified concurrently; read it again and retry`);
      throw err;
    }
  }

  private async appendGroups(groups: AppendEvent[][]): Promise<Settled<{ position: number }[]>[]> {
    const alone = (g: AppendEvent[]) => this.appendNow(g).then(
      (value): Settled<{ position: number }[]> => ({ ok: true, value }),
      (error): Settled<{ position: number }[]> => ({ ok: false, error }));
    if (groups.length === 1) return [await alone(groups[0])];
    const all = groups.flat();
    let out: { position: number }[];
    try {
      out = await appendEvents(this.db.sql, all);
    } catch {
      // one of them lost a race (or failed): each on its own, so each gets its own answer
      return Promise.all(groups.map(alone));
    }
    this.notifyAppended(out.map((o) => o.position), all);
    const answers: Settled<{ position: number }[]>[] = [];
    let at = 0;
    for (const g of groups) {
      answers.push({ ok: true, value: out.slice(at, at + g.length) });
      at += g.length;
    }
    return answers;
  }

  async get(info: KindInfo, namespace: string, name: string, actor: Actor): Promise<K8sObject> {
    return (await this.read(info, namespace, name, actor)).object;
  }

  /** The object, and the position of its last change, its status's included (the Kubernetes paths' resourceVersion). */
  async read(info: KindInfo, namespace: string, name: string, actor: Actor): Promise<{ object: K8sObject; lastChange: number }> {
    const stream = streamKey(info.kind, info.scope === 'Namespaced' ? namespace : '', name);
    const row = await this.reads.submit(stream);
    if (!row || row.deleted) throw notFound(`${info.kind} "${name}" not found${info.scope === 'Namespaced' ? ` in namespace "${namespace}"` : ''}`);
    const data = isSecret(row.object) && actor.secretReader ? await getSecretData(this.db.sql, stream) : undefined;
    return { object: this.present(row.object, data ?? undefined, actor), lastChange: row.lastChange };
  }

  async list(info: KindInfo, q: { namespace?: string; namespaces?: string[]; selector?: Requirement[]; limit?: number; after?: { namespace: string; name: string } }, actor: Actor) {
    const res = await listObjects(this.db.sql, { kind: info.kind, ...q });
    let items = res.items;
    if (info.kind === 'Secret' && actor.secretReader) {
      items = await Promise.all(items.map(async (o) => this.present(o, await getSecretData(this.db.sql, streamKey('Secret', o.metadata.namespace ?? '', o.metadata.name)) ?? undefined, actor)));
    } else if (info.kind === 'Secret') items = items.map((o) => this.present(o, undefined, actor));
    return { items, more: res.more };
  }

  async history(info: KindInfo, namespace: string, name: string) {
    const events = await readStream(this.db.sql, streamKey(info.kind, info.scope === 'Namespaced' ? namespace : '', name));
    if (events.length === 0) throw notFound(`${info.kind} "${name}" has no history`);
    return events;
  }

  async at(info: KindInfo, namespace: string, name: string, version: number): Promise<K8sObject> {
    const ev = await readStreamVersion(this.db.sql, streamKey(info.kind, info.scope === 'Namespaced' ? namespace : '', name), version);
    if (!ev) throw notFound(`${info.kind} "${name}" has no version ${version}`);
    return ev.object;
  }

  private present(obj: K8sObject, data: Record<string, string> | undefined, actor: Actor): K8sObject {
    if (!isSecret(obj)) return obj;
    return presentSecret(obj, actor.secretReader ? data : undefined);
  }
}

/** A lost race on append, which a write without a precondition may retry. */
class ConflictRetry extends Error {
  constructor(readonly conflict: ServiceError) {
    super(conflict.message);
  }
}

function unwrapRetry(e: unknown): unknown {
  return e instanceof ConflictRetry ? e.conflict : e;
}

function normalise(info: KindInfo, obj: K8sObject): K8sObject {
  if (info.kind !== 'Namespace') return obj;
  const labels = { ...(obj.metadata.labels ?? {}), [NAMESPACE_LABEL]: obj.metadata.name };
  return { ...obj, metadata: { ...obj.metadata, labels } };
}

function withoutStatus(obj: K8sObject): K8sObject {
  const { status: _s, ...rest } = obj;
  return rest;
}

/** `before`: the live version the decision replaces or deletes, if any. */
export function toEvent(info: KindInfo, stream: string, decision: Extract<Decision, { outcome: 'append' }>, actor: Actor, time: string, before: K8sObject | undefined): AppendEvent {
  const o = decision.object;
  return {
    stream, kind: info.kind, namespace: info.scope === 'Namespaced' ? o.metadata.namespace ?? '' : '', name: o.metadata.name,
    version: decision.expectedVersion + 1, type: decision.type, actor: actor.name, time, object: o, projection: o,
    touches: touchedBy(info.kind, before, o),
  };
}

/** If-Match: "<rv>" (quotes optional; * means any existing version). */
export function parseIfMatch(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const v = header.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
  return v === '*' ? undefined : v;
}

function reconcilePreconditions(fromBody: string | undefined, ifMatch: string | undefined): string | undefined {
  const fromHeader = parseIfMatch(ifMatch);
  if (fromBody !== undefined && fromHeader !== undefined && fromBody !== fromHeader)
    throw conflict(`metadata.resourceVersion ${fromBody} and If-Match ${fromHeader} disagree`);
  return fromBody ?? fromHeader;
}
