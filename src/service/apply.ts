// POST /api/v1/apply: a whole manifest, all or nothing, in one transaction.
//
// Order of the checks: parse (400/413), identify every object, authorize every object and every
// object a prune would delete (403, before any validation), identity problems and duplicates (422),
// validation of every object (422, all problems listed), then one transaction. The decision for
// each object is made against the versions read. The transaction (applies commit one at a time)
// share-locks the objects that stay unchanged and checks their versions, and the log's unique
// (stream, version) refuses a concurrent writer of any object written: two overlapping applies
// never both succeed against the same versions; one applies whole, the other gets 409 and writes
// nothing.
import { createHash, randomUUID } from 'node:crypto';
import type { Database } from '../adapters/store/database';
import type { Principal } from './principal';
import { badRequest, conflict, fromStatus, invalid, isConflict, ServiceError, type FieldError } from './errors';
import { appendEvents, VersionConflictError, type AppendEvent } from '../adapters/store/eventlog';
import { APPLY_SET_LABEL, readApplySet, readObjects, readStatuses } from '../adapters/store/apply-reads';
import { lockApplies, lockUnchanged } from '../adapters/store/apply-locks';
import { expireIdempotency, findIdempotency, recordIdempotency, updateIdempotencyResponse } from '../adapters/store/apply-idempotency';
import { caughtUp } from '../adapters/store/checkpoints';
import type { components } from '../generated/api';
import { kindInfo } from '../core/model/kinds';
import type { ManifestFormat } from '../core/apply/manifest';
import { identify } from '../core/apply/identify';
import { planApply, type CurrentRow, type PlanEntry, type PlannedChange } from '../core/apply/plan';
import { objectDiff } from '../core/apply/diff';
import { ApplyRejection, summarizeIssues, type ApplyAction, type ApplyIssue, type Origin } from '../core/apply/types';
import { canWrite, WRITABLE } from './access';
import { analysisScope, analyzeManifests } from '../core/analyze';
import { readAnalysisObjects } from '../adapters/store/analysis-reads';
import { BULK_WRITE, refreshLogStatistics } from '../adapters/store/planner-statistics';
import { streamKey } from '../core/objects/keys';
import type { Actor, ResourceService } from './resources';
import { toEvent } from './resources';
import { isSecret, splitSecret } from './secrets';
import type { ManifestParser } from './manifest-parser';

export interface ApplyOptions {
  dryRun: boolean;
  prune: boolean;
  applySet?: string;
  /** seconds; 0 = answer at once */
  wait: number;
  namespace?: string;
  idempotencyKey?: string;
}

/** The answer's shapes are the spec's (openapi/schemas/apply.yaml). */
export type ApplyCondition = components['schemas']['ApplyCondition'];
export type ApplyResult = components['schemas']['ApplyResult'];

/**
 * 'applied': the body to answer with. 'committed-not-reconciled': written, but the reconciler had not
 * caught up within the wait; the results carry the conditions known then.
 */
export type ApplyAnswer = (
  | { outcome: 'applied'; body: Record<string, unknown>; replayed?: boolean }
  | { outcome: 'committed-not-reconciled'; detail: string; results: ApplyResult[] }
) & {
  /** what the static analysis of the applied objects found (core/analyze), as sentences; none on a replay */
  warnings?: string[];
};

export interface ApplyRequest {
  body: Buffer;
  format: ManifestFormat;
  options: ApplyOptions;
  principal: Principal;
  actor: Actor;
  signal?: AbortSignal;
}

/**
 * The static analysis runs in one piece: above this many objects (the apply's and those stored in
 * its namespaces) it would stall other requests for longer than a slice does, so a larger apply is
 * not analyzed (its one warning says so).
 */
const MAX_ANALYZED = 2000;
/** how long a statement of the commit may take, waiting for another apply's lock included */
const COMMIT_TIMEOUT_S = 120;

/** Large applies give the event loop back every SLICE objects, so other requests are not stalled. */
const SLICE = 500;
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const POLL_MS = 200;

export function applySetNameProblem(name: string): string | null {
  if (name === '') return 'applySet must not be empty';
  if (name.length > 63) return 'applySet must be no more than 63 characters (it becomes a label value)';
  if (!LABEL_VALUE.test(name)) return 'applySet must be a valid label value: alphanumeric characters, "-", "_" or ".", starting and ending with an alphanumeric character';
  return null;
}

function reject(status: ApplyRejection['status'], headline: string, issues: ApplyIssue[]): never {
  throw fromStatus(status, summarizeIssues(headline, issues), issues as FieldError[]);
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

export class ApplyService {
  private applies = 0;

  constructor(
    private readonly db: Database,
    private readonly resources: ResourceService,
    private readonly parser: ManifestParser,
    private readonly opts: {
      /** the controller whose reconciler `wait` waits for */
      controllerName?: string;
      /** wakes a waiting apply when a recompute finishes (the bus); polling covers the rest */
      onReconciled?: (fn: () => void) => () => void;
    } = {},
  ) {}

  async apply(req: ApplyRequest): Promise<ApplyAnswer> {
    const { options: o, actor } = req;
    const key = o.dryRun ? undefined : o.idempotencyKey;
    const requestHash = key ? hashRequest(req) : '';
    if (key) {
      const found = await findIdempotency(this.db.sql, actor.name, key);
      if (found) return this.replay(found, requestHash, key);
    }

    const text = decodeUtf8(req.body);
    let manifest;
    try {
      manifest = await this.parser.parse(text, req.format);
    } catch (e) {
      if (e instanceof ApplyRejection) throw fromStatus(e.status, e.message, e.issues as FieldError[]);
      throw e;
    }
    if (manifest.length === 0) throw badRequest('the body holds no objects to apply');

    const ident = identify(manifest, o.namespace);
    const inBody = new Set(ident.entries.map((e) => e.stream));
    const pruneRows = o.prune && o.applySet ? (await readApplySet(this.db.sql, o.applySet)).filter((r) => !inBody.has(r.stream)) : [];

    this.authorize(req.principal, ident, pruneRows);
    if (ident.issues.length) reject(422, `${count(ident.issues.length, 'object')} in the body cannot be applied`, ident.issues);

    const current = await readObjects(this.db.sql, ident.entries.map((e) => e.stream));
    const planEntries: PlanEntry[] = [];
    const issues: ApplyIssue[] = [];
    let n = 0;
    for (const e of ident.entries) {
      if (++n % SLICE === 0) await breathe();
      const who = { ...origin(e), kind: e.info.kind, ...(e.namespace ? { namespace: e.namespace } : {}), name: e.name };
      const row = current.get(e.stream);
      try {
        const { object } = this.resources.prepare(e.info, e.namespace, undefined, withApplySet(e.raw, o.applySet));
        let valid = this.resources.validated(e.info, object, row && !row.deleted ? row.object : undefined);
        let secretData: Record<string, string> | undefined;
        if (isSecret(valid)) {
          const split = splitSecret(valid);
          valid = split.object;
          secretData = split.data;
        }
        planEntries.push({ ...origin(e), info: e.info, stream: e.stream, namespace: e.namespace, name: e.name, object: valid, secretData });
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        if (err.errors?.length) for (const fe of err.errors) issues.push({ ...who, path: fe.path, message: fe.message });
        else issues.push({ ...who, path: '', message: err.detail });
      }
    }
    if (issues.length) reject(422, `the apply is invalid (${count(issues.length, 'problem')}); nothing was written`, issues);

    const now = this.resources.now();
    const plan: PlannedChange[] = [];
    for (let i = 0; i < planEntries.length; i += SLICE) {
      plan.push(...planApply({ entries: planEntries.slice(i, i + SLICE), current, now, newUid: randomUUID, prune: [] }));
      await breathe();
    }
    plan.push(...planApply({ entries: [], current, now, newUid: randomUUID, prune: pruneRows.map((row) => ({ info: kindInfo(row.kind)!, row })) }));
    const warnings = await this.analyze(plan);

    if (o.dryRun) {
      const results: ApplyResult[] = [];
      for (const p of plan) {
        results.push(present(p, true));
        if (results.length % SLICE === 0) await breathe();
      }
      return { outcome: 'applied', body: { dryRun: true, results }, warnings };
    }

    const events: AppendEvent[] = [];
    for (const p of plan) {
      if (!p.decision) continue;
      const ev = toEvent(p.info, p.stream, p.decision, actor, now, p.before);
      if (p.info.kind === 'Secret') ev.secret = p.action === 'pruned' ? { op: 'delete' } : { op: 'put', data: p.secretData ?? {}, digest: String(p.decision.object.dataDigest) };
      events.push(ev);
    }
    const results = plan.map((p) => present(p, false));
    const answer = { results };
    let positions: number[] = [];
    try {
      positions = await this.commit(events, plan, key ? { actor: actor.name, key, requestHash, response: answer } : undefined);
    } catch (e) {
      if (e instanceof IdempotencyRace) {
        const found = await findIdempotency(this.db.sql, actor.name, key!);
        if (found) return this.replay(found, requestHash, key!);
        throw conflict(`another request with the Idempotency-Key "${key}" was being applied at the same time; nothing was written: retry`);
      }
      if (key && isConflict(e)) {
        // lost a race, perhaps to the same request sent twice: then its answer is this one's
        const found = await findIdempotency(this.db.sql, actor.name, key);
        if (found) return this.replay(found, requestHash, key);
      }
      throw e;
    }
    if (positions.length) this.resources.notifyAppended(positions, events);
    if (events.length >= BULK_WRITE) void refreshLogStatistics(this.db.sql).catch(() => undefined);
    if (key && ++this.applies % 100 === 0) void expireIdempotency(this.db.sql).catch(() => undefined);

    if (o.wait <= 0) return { outcome: 'applied', body: answer, warnings };
    let target = 0;
    for (const pos of positions) target = Math.max(target, pos);
    for (const p of plan) if (p.action === 'unchanged') target = Math.max(target, current.get(p.stream)!.position);
    const done = await this.waitFor(target, o.wait, req.signal);
    await this.attachConditions(plan, results);
    if (!done) {
      return {
        outcome: 'committed-not-reconciled',
        detail: `the apply was committed, but the reconciler had not caught up with it (log position ${target}) within ${o.wait} s; the results carry the conditions known now`,
        results,
        warnings,
      };
    }
    if (key) await updateIdempotencyResponse(this.db.sql, actor.name, key, requestHash, answer);
    return { outcome: 'applied', body: answer, warnings };
  }

  /**
   * The static analysis of the objects as they will be, over what is stored in their reach (the
   * objects a prune deletes left out). It warns and never refuses: a failure to analyze is itself
   * the one warning.
   */
  private async analyze(plan: PlannedChange[]): Promise<string[]> {
    const controllerName = this.opts.controllerName;
    if (!controllerName) return [];
    const tooMany = (lead: string) => `${lead} the ${MAX_ANALYZED} the server analyzes (the analysis takes the event loop for about 0.1 ms an object): run switchyard analyze --server on the manifests for their warnings`;
    if (plan.length > MAX_ANALYZED) return [tooMany(`the apply holds ${plan.length} objects, more than`)];
    try {
      const manifest = plan.filter((p) => p.after).map((p) => (p.secretData ? { ...p.after!, data: p.secretData } : p.after!));
      const inPlan = new Set(plan.map((p) => p.stream));
      const scope = analysisScope(manifest);
      // the stored objects in the apply's reach are analyzed with it: they count against the bound
      // too (a 1,000-route apply into namespaces of 5,000 routes held the event loop for a second)
      const read = await readAnalysisObjects(this.db.sql, scope.namespaces, scope.secrets, MAX_ANALYZED + plan.length);
      const others = read?.filter((o) => !inPlan.has(streamKey(o.kind, o.metadata.namespace ?? '', o.metadata.name)));
      if (!others || plan.length + others.length > MAX_ANALYZED)
        return [tooMany(others
          ? `the apply's ${count(plan.length, 'object')} and the ${others.length} others stored in their namespaces are ${plan.length + others.length}, more than`
          : `the apply's ${count(plan.length, 'object')} and the others stored in their namespaces are more than`)];
      // the objects a prune deletes are not in the manifest, and are left out of what is stored
      return analyzeManifests({ manifest, stored: others, controllerName }).map((w) => w.message);
    } catch (e) {
      return [`the manifests could not be analyzed: ${(e as Error).message}`];
    }
  }

  /** Every record is written as a 200 answer (see commit): a replay is one. */
  private replay(found: { requestHash: string; response: unknown }, requestHash: string, key: string): ApplyAnswer {
    if (found.requestHash !== requestHash)
      throw invalid(`the Idempotency-Key "${key}" was used within the last 24 hours with a different request; use a new key for a different body`, [{ path: 'Idempotency-Key', message: 'used with a different request' }]);
    return { outcome: 'applied', body: found.response as Record<string, unknown>, replayed: true };
  }

  /** 403 when the caller may not write an object of the body, or delete one a prune would. */
  private authorize(p: Principal, ident: ReturnType<typeof identify>, pruneRows: CurrentRow[]): void {
    const forbidden: ApplyIssue[] = [];
    const who = `the ${p.role} token "${p.name}"`;
    const why = (kind: string | undefined, ns: string | undefined): { path: string; message: string } => {
      const info = kind ? kindInfo(kind) : undefined;
      if (!info) return { path: 'kind', message: `${who} may not write objects of an unknown kind` };
      if (info.scope === 'Namespaced' && !ns) return { path: 'metadata.namespace', message: `${who} may not write ${info.kind} objects without a namespace` };
      const kinds = WRITABLE[p.role];
      if (kinds !== 'all' && (!kinds.includes(info.kind) || info.scope === 'Cluster')) return { path: 'kind', message: `${who} may not write ${info.kind} objects` };
      return { path: 'metadata.namespace', message: `${who} may not write ${info.kind} in namespace "${ns}"` };
    };
    for (const e of ident.entries) {
      if (!canWrite(p, e.info.kind, e.namespace || undefined, e.name))
        forbidden.push({ ...origin(e), kind: e.info.kind, ...(e.namespace ? { namespace: e.namespace } : {}), name: e.name, ...why(e.info.kind, e.namespace || undefined) });
    }
    for (const u of ident.unidentified) {
      if (!canWrite(p, u.kind ?? '', u.namespace, u.name)) forbidden.push({ ...u, ...why(u.kind, u.namespace) });
    }
    for (const r of pruneRows) {
      if (!canWrite(p, r.kind, r.namespace || undefined, r.name)) {
        const w = why(r.kind, r.namespace || undefined);
        forbidden.push({ kind: r.kind, ...(r.namespace ? { namespace: r.namespace } : {}), name: r.name, path: w.path, message: `prune would delete it, but ${w.message}` });
      }
    }
    if (forbidden.length) reject(403, `the apply is forbidden (${count(forbidden.length, 'object')} out of bounds); nothing was written`, forbidden);
  }

  /** One transaction: the read-set check, every event in one statement, and the Idempotency-Key. */
  private async commit(events: AppendEvent[], plan: PlannedChange[], idem?: { actor: string; key: string; requestHash: string; response: unknown }): Promise<number[]> {
    if (events.length === 0) {
      if (idem && !(await recordIdempotency(this.db.sql, idem.actor, idem.key, { requestHash: idem.requestHash, status: 200, response: idem.response })))
        throw new IdempotencyRace();
      return [];
    }
    const unchanged = new Map(plan.filter((p) => p.action === 'unchanged').map((p) => [p.stream, p.readVersion]));
    try {
      // on the driver's pool, as every statement of the API is: Prisma's query engine took some
      // 300 ms to load for a process's first apply, and a round of its own work per statement
      return await this.db.transaction(async (tx) => {
        // what Prisma's transaction timeout bounded: a wait for another apply's lock, a stuck statement
        await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = '${COMMIT_TIMEOUT_S}s'`);
        await lockApplies(tx);
        const stale = await lockUnchanged(tx, unchanged);
        if (stale.length) throw new VersionConflictError(stale);
        const out = await appendEvents(tx, events);
        if (idem && !(await recordIdempotency(tx, idem.actor, idem.key, { requestHash: idem.requestHash, status: 200, response: idem.response })))
          throw new IdempotencyRace();
        return out.map((r) => r.position);
      });
    } catch (e) {
      if (e instanceof IdempotencyRace) throw e;
      if (e instanceof VersionConflictError || isConcurrencyAbort(e))
        throw conflict(`a concurrent write changed objects of this apply${e instanceof VersionConflictError ? ` (${e.streams.slice(0, 5).join(', ')}${e.streams.length > 5 ? ', ...' : ''})` : ''} after they were read; nothing was written: read again and retry`);
      throw e;
    }
  }

  private async waitFor(position: number, seconds: number, signal?: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + seconds * 1000;
    let wake: (() => void) | null = null;
    const unsubscribe = this.opts.onReconciled?.(() => wake?.());
    try {
      for (;;) {
        if (await caughtUp(this.db, position, this.opts.controllerName)) return true;
        const left = deadline - Date.now();
        if (left <= 0 || signal?.aborted) return false;
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, Math.min(POLL_MS, left));
          function done() {
            clearTimeout(t);
            wake = null;
            resolve();
          }
          wake = done;
        });
      }
    } finally {
      unsubscribe?.();
    }
  }

  private async attachConditions(plan: PlannedChange[], results: ApplyResult[]): Promise<void> {
    const statuses = await readStatuses(this.db.sql, plan.filter((p) => p.action !== 'pruned').map((p) => p.stream));
    plan.forEach((p, i) => {
      if (p.action === 'pruned') return;
      results[i].conditions = conditionsOf(statuses.get(p.stream)?.status, p.namespace);
    });
  }
}

class IdempotencyRace extends Error {}

function origin(e: Origin): Origin {
  return e.item === undefined ? { document: e.document } : { document: e.document, item: e.item };
}

/** The object with the apply-set label set (a copy: the body is not changed). */
function withApplySet(raw: Record<string, unknown>, applySet: string | undefined): Record<string, unknown> {
  if (!applySet) return raw;
  const metadata = (raw.metadata && typeof raw.metadata === 'object' ? raw.metadata : {}) as Record<string, unknown>;
  const labels = metadata.labels && typeof metadata.labels === 'object' && !Array.isArray(metadata.labels) ? { ...(metadata.labels as object) } : {};
  Object.defineProperty(labels, APPLY_SET_LABEL, { value: applySet, enumerable: true, writable: true, configurable: true });
  return { ...raw, metadata: { ...metadata, labels } };
}

function present(p: PlannedChange, withDiff: boolean): ApplyResult {
  const r: ApplyResult = { kind: p.info.kind, ...(p.namespace ? { namespace: p.namespace } : {}), name: p.name, action: p.action, resourceVersion: p.resourceVersion };
  if (p.document !== undefined) r.document = p.document;
  if (p.item !== undefined) r.item = p.item;
  if (withDiff) r.diff = objectDiff(`${p.info.kind} ${p.namespace ? `${p.namespace}/` : ''}${p.name}`, p.before, p.after);
  return r;
}

function conditionsOf(status: Record<string, any> | undefined, namespace: string): ApplyCondition[] {
  if (!status) return [];
  const out: ApplyCondition[] = [];
  const pick = (c: any, extra: Partial<ApplyCondition>): ApplyCondition => ({
    type: c.type, status: c.status, reason: c.reason, message: c.message,
    ...(c.observedGeneration !== undefined ? { observedGeneration: c.observedGeneration } : {}),
    ...(c.lastTransitionTime ? { lastTransitionTime: c.lastTransitionTime } : {}), ...extra,
  });
  for (const c of status.conditions ?? []) out.push(pick(c, {}));
  for (const l of status.listeners ?? []) for (const c of l.conditions ?? []) out.push(pick(c, { listener: l.name }));
  for (const p of status.parents ?? []) {
    const ref = p.parentRef ?? {};
    const parent = `${ref.namespace ?? namespace}/${ref.name}${ref.sectionName ? `/${ref.sectionName}` : ''}${ref.port ? `:${ref.port}` : ''}`;
    for (const c of p.conditions ?? []) out.push(pick(c, { parent }));
  }
  return out;
}

function decodeUtf8(buf: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    throw badRequest('the request body is not valid UTF-8');
  }
}

/** What makes two applies "the same request" for an Idempotency-Key: the body and what it asks. */
function hashRequest(req: ApplyRequest): string {
  const o = req.options;
  const h = createHash('sha256');
  h.update(JSON.stringify({ format: req.format, prune: o.prune, applySet: o.applySet ?? null, namespace: o.namespace ?? null }));
  h.update('\n');
  h.update(req.body);
  return h.digest('hex');
}

function isConcurrencyAbort(err: unknown): boolean {
  const e = err as { code?: string; message?: string; meta?: { code?: string }; cause?: { code?: string } };
  const text = `${e?.code ?? ''} ${e?.meta?.code ?? ''} ${e?.cause?.code ?? ''} ${e?.message ?? ''}`;
  return /40P01|40001|deadlock detected|could not serialize/i.test(text);
}

