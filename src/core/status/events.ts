// The Kubernetes Events a status change is worth, decided from the statuses before and after a
// recompute (and from a proxy's reports): transitions only, as a controller's recorder emits them.
// A route's Accepted condition for a parent that appears, flips or changes its reason; a Gateway's
// Programmed condition likewise; a listener that becomes Conflicted (or changes why); a proxy that
// rejects a table, falls behind, or comes back in sync. A ListenerSet's Programmed condition and
// listeners count as a Gateway's do. Nothing when nothing of that changed:
// a recompute that rewrites a status for another reason (a new generation, an attached-route
// count) records nothing.
import type { Condition } from '../model/objects';
import { kindInfo } from '../model/kinds';
import { ConditionType } from './reasons';

export type EventType = 'Normal' | 'Warning';

/** One Event to record; the store gives it its object's uid, its times and its count. */
export interface EventDraft {
  regarding: { apiVersion: string; kind: string; namespace: string; name: string; fieldPath?: string };
  type: EventType;
  reason: string;
  /** what the controller did or failed to do (events.k8s.io/v1 `action`) */
  action: string;
  /** the human-readable message (`note`; core v1 `message`) */
  note: string;
}

/** Kubernetes limits an Event's note to 1 kB. */
export const NOTE_LIMIT = 1024;

const conditionOf = (conditions: unknown, type: string): Condition | undefined =>
  Array.isArray(conditions) ? (conditions as Condition[]).find((c) => c && c.type === type) : undefined;

/** A condition worth an Event after `before`: it appeared, its status flipped or its reason changed. */
function transitioned(before: Condition | undefined, after: Condition | undefined): after is Condition {
  return after !== undefined && (before === undefined || before.status !== after.status || before.reason !== after.reason);
}

function note(text: string): string {
  return text.length <= NOTE_LIMIT ? text : `${text.slice(0, NOTE_LIMIT - 3)}...`;
}

function regarding(kind: string, namespace: string, name: string, fieldPath?: string): EventDraft['regarding'] {
  const r: EventDraft['regarding'] = { apiVersion: kindInfo(kind)?.preferredVersion ?? '', kind, namespace, name };
  if (fieldPath) r.fieldPath = fieldPath;
  return r;
}

interface ParentEntry {
  parentRef?: { group?: string; kind?: string; namespace?: string; name?: string; sectionName?: string; port?: number };
  conditions?: unknown;
}

/** A parentRef as a key and as words: `Gateway infra/edge listener "https" port 443`. */
function parentOf(p: ParentEntry['parentRef'], routeNamespace: string): { key: string; words: string } {
  const kind = p?.kind ?? 'Gateway';
  const ns = p?.namespace ?? routeNamespace;
  const name = p?.name ?? '';
  const key = JSON.stringify([p?.group ?? '', kind, ns, name, p?.sectionName ?? '', p?.port ?? '']);
  let words = `${kind} ${ns}/${name}`;
  if (p?.sectionName) words += ` ${kind === 'ListenerSet' || kind === 'Gateway' ? 'listener' : 'section'} "${p.sectionName}"`;
  if (p?.port !== undefined) words += ` port ${p.port}`;
  return { key, words };
}

/**
 * The Events of one route's status.parents entries (those one Gateway's recompute writes) going
 * from `before` to `after`: per parentRef, its Accepted condition when it appeared, flipped or
 * changed its reason. An entry that went away records nothing (the route no longer names it).
 */
export function routeParentEvents(route: { kind: string; namespace: string; name: string }, before: readonly unknown[] | undefined, after: readonly unknown[] | undefined): EventDraft[] {
  if (!after?.length) return [];
  const was = new Map<string, Condition | undefined>();
  for (const e of (before ?? []) as ParentEntry[]) was.set(parentOf(e?.parentRef, route.namespace).key, conditionOf(e?.conditions, ConditionType.Accepted));
  const out: EventDraft[] = [];
  for (const e of after as ParentEntry[]) {
    const { key, words } = parentOf(e?.parentRef, route.namespace);
    const now = conditionOf(e?.conditions, ConditionType.Accepted);
    if (!transitioned(was.get(key), now)) continue;
    const accepted = now.status === 'True';
    out.push({
      regarding: regarding(route.kind, route.namespace, route.name),
      type: accepted ? 'Normal' : 'Warning',
      reason: now.reason,
      action: 'Attach',
      note: note(`${accepted ? 'Accepted' : 'Not accepted'} by ${words}${now.message ? `: ${now.message}` : ''}`),
    });
  }
  return out;
}

interface GatewayStatusLike {
  conditions?: unknown;
  listeners?: { name?: string; conditions?: unknown }[];
}

/**
 * The Events of a Gateway's status going from `before` to `after`: its Programmed condition when
 * it appeared, flipped or changed its reason; each listener that became Conflicted or changed why.
 * A ListenerSet's status has the same shape, and the same Events (`kind` ListenerSet).
 */
export function gatewayEvents(gateway: { namespace: string; name: string }, before: unknown, after: unknown, kind: 'Gateway' | 'ListenerSet' = 'Gateway'): EventDraft[] {
  if (!after) return [];
  const b = (before ?? {}) as GatewayStatusLike;
  const a = after as GatewayStatusLike;
  const out: EventDraft[] = [];
  const programmed = conditionOf(a.conditions, ConditionType.Programmed);
  if (transitioned(conditionOf(b.conditions, ConditionType.Programmed), programmed)) {
    const ok = programmed.status === 'True';
    out.push({
      regarding: regarding(kind, gateway.namespace, gateway.name), type: ok ? 'Normal' : 'Warning', reason: programmed.reason, action: 'Program',
      note: note(programmed.message || (ok ? `The ${kind} is programmed` : `The ${kind} is not programmed`)),
    });
  }
  const listenersBefore = new Map((b.listeners ?? []).map((l) => [l?.name, l]));
  for (const l of a.listeners ?? []) {
    const conflicted = conditionOf(l?.conditions, ConditionType.Conflicted);
    if (conflicted?.status !== 'True') continue;
    const was = conditionOf(listenersBefore.get(l.name)?.conditions, ConditionType.Conflicted);
    if (was?.status === 'True' && was.reason === conflicted.reason) continue;
    out.push({
      regarding: regarding(kind, gateway.namespace, gateway.name, `spec.listeners{${l.name ?? ''}}`), type: 'Warning', reason: conflicted.reason, action: 'Validate',
      note: note(`Listener "${l.name ?? ''}" is conflicted${conflicted.message ? `: ${conflicted.message}` : ''}`),
    });
  }
  return out;
}

/** How a proxy's report stands, for its Events: the error it reports, whether it serves an older table than the current one. */
export interface ProxyState {
  error: string | null;
  stale: boolean;
  version: number | null;
}

/**
 * The Events of a proxy's report after its previous one (undefined: its first): a rejected table
 * (an error it did not report before), falling behind the current table, and coming back in sync
 * after either.
 */
export function proxyReportEvents(gateway: { namespace: string; name: string }, proxyId: string, before: ProxyState | undefined, after: ProxyState, current: number | null): EventDraft[] {
  const on = regarding('Gateway', gateway.namespace, gateway.name);
  const out: EventDraft[] = [];
  if (after.error !== null && after.error !== (before?.error ?? null)) {
    out.push({ regarding: on, type: 'Warning', reason: 'ProxyRejected', action: 'Sync', note: note(`Proxy "${proxyId}" rejected the route table: ${after.error}`) });
  }
  if (after.stale && !before?.stale) {
    out.push({
      regarding: on, type: 'Warning', reason: 'ProxyStale', action: 'Sync',
      note: note(`Proxy "${proxyId}" serves ${after.version === null ? 'no route table' : `version ${after.version} of the route table`}${current !== null ? `; the current one is ${current}` : ''}`),
    });
  }
  const troubled = before !== undefined && (before.error !== null || before.stale);
  if (troubled && after.error === null && after.version !== null && (current === null || after.version >= current)) {
    out.push({ regarding: on, type: 'Normal', reason: 'ProxySynced', action: 'Sync', note: note(`Proxy "${proxyId}" serves the current route table (version ${after.version})`) });
  }
  return out;
}
