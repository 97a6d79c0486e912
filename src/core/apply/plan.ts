// What an apply does to each object, decided against the objects as read: the write rules of
// src/core/objects/write.ts (replace, compared after defaulting), plus the deletes of a prune.
import type { KindInfo } from '../model/kinds';
import type { K8sObject } from '../model/objects';
import { decideDelete, decideWrite, type CurrentState, type Decision } from '../objects/write';
import type { ApplyAction, Origin } from './types';

export interface PlanEntry extends Origin {
  info: KindInfo;
  stream: string;
  namespace: string;
  name: string;
  /** validated and defaulted; a Secret already split (dataDigest in place of data) */
  object: K8sObject;
  secretData?: Record<string, string>;
}

export interface CurrentRow extends CurrentState {
  stream: string;
  kind: string;
  namespace: string;
  name: string;
  position: number;
}

export type AppendDecision = Extract<Decision, { outcome: 'append' }>;

export interface PlannedChange extends Partial<Origin> {
  info: KindInfo;
  stream: string;
  namespace: string;
  name: string;
  action: ApplyAction;
  /** the live object before (without status), if any */
  before?: K8sObject;
  /** the object as stored after; absent for a prune */
  after?: K8sObject;
  /** resourceVersion after the apply */
  resourceVersion: string;
  /** present when an event is to be written */
  decision?: AppendDecision;
  secretData?: Record<string, string>;
  /** the stream version the plan was made against (0 when there was no row) */
  readVersion: number;
}

export function planApply(args: {
  entries: PlanEntry[];
  current: Map<string, CurrentRow>;
  prune: { info: KindInfo; row: CurrentRow }[];
  now: string;
  newUid: () => string;
}): PlannedChange[] {
  const out: PlannedChange[] = [];
  for (const e of args.entries) {
    const row = args.current.get(e.stream) ?? null;
    const live = row && !row.deleted ? row.object : undefined;
    const decision = decideWrite({ current: row, incoming: e.object, mode: 'replace', now: args.now, newUid: args.newUid() });
    const base = {
      document: e.document, ...(e.item !== undefined ? { item: e.item } : {}),
      info: e.info, stream: e.stream, namespace: e.namespace, name: e.name, before: live,
      secretData: e.secretData, readVersion: row?.version ?? 0,
    };
    if (decision.outcome === 'reject') throw new Error(`unexpected rejection of a replace without precondition: ${decision.message}`);
    if (decision.outcome === 'unchanged') {
      out.push({ ...base, action: 'unchanged', after: live, resourceVersion: String(row!.version) });
      continue;
    }
    out.push({
      ...base, action: decision.type === 'Created' ? 'created' : 'configured', after: decision.object,
      resourceVersion: String(decision.expectedVersion + 1), decision,
    });
  }
  for (const { info, row } of args.prune) {
    const decision = decideDelete({ current: row, kind: info.kind, name: row.name });
    if (decision.outcome !== 'append') continue; // already gone
    out.push({
      info, stream: row.stream, namespace: row.namespace, name: row.name, action: 'pruned', before: row.object,
      resourceVersion: String(decision.expectedVersion + 1), decision, readVersion: row.version,
    });
  }
  return out;
}
