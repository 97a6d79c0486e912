// ListenerSet status, written by the recompute of the Gateway its parentRef names: Accepted and
// Programmed (NotAllowed when the Gateway's allowedListeners does not admit it, ParentNotAccepted
// when the Gateway is not accepted, ListenersNotValid when none of its listeners can be
// programmed; Programmed=False says Invalid instead on a class that opts into #4815's reasons,
// see listener-set-mode.ts) and one status.listeners entry per listener, in the Gateway listeners' shape.
import type { Condition, ListenerSetStatus } from '../model/objects';
import type { GatewayAnalysis } from '../attach/attach';
import type { ListenerAnalysis } from '../attach/listeners';
import type { ListenerSetVerdict } from '../attach/listener-sets';
import { draft, mergeConditions, type ConditionDraft } from './conditions';
import { ConditionType, ListenerSetReason, OWNED_CONDITION_TYPES } from './reasons';
import { attachedRouteCounts, listenerStatusOf } from './gateway';
import { listenerSetStatusMode } from './listener-set-mode';

export type { ListenerSetStatus };

export interface ListenerSetStatusEntry {
  namespace: string;
  name: string;
  status: ListenerSetStatus;
}

function conditionsOf(analysis: GatewayAnalysis, s: ListenerSetVerdict, ls: ListenerAnalysis[]): [ConditionDraft, ConditionDraft] {
  // the released reading repeats the Accepted reason on Programmed; #4815 keeps NotAllowed and
  // ListenersNotValid to Accepted and says Invalid on Programmed (status/listener-set-mode.ts)
  const pr4815 = listenerSetStatusMode(analysis.gatewayClass) === 'pr4815';
  const both = (reason: string, message: string, programmedReason = pr4815 ? ListenerSetReason.Invalid : reason): [ConditionDraft, ConditionDraft] => [
    draft(ConditionType.Accepted, false, reason, message), draft(ConditionType.Programmed, false, programmedReason, message)];
  if (!s.allowed) return both(ListenerSetReason.NotAllowed, s.message ?? 'The Gateway does not allow this ListenerSet');
  if (!analysis.verdict.accepted)
    return both(ListenerSetReason.ParentNotAccepted, `The parent Gateway is not accepted: ${analysis.verdict.message}`, ListenerSetReason.ParentNotProgrammed);
  const valid = ls.filter((l) => l.valid);
  const invalid = ls.filter((l) => !l.valid);
  const names = (xs: ListenerAnalysis[]) => xs.map((l) => `"${l.name}" (${(l.accepted.status === 'False' ? l.accepted : l.programmed).reason})`).join(', ');
  if (!valid.length) return both(ListenerSetReason.ListenersNotValid, `No listener can be programmed: ${names(invalid)}`);
  const programmed = draft(ConditionType.Programmed, true, ListenerSetReason.Programmed, 'The ListenerSet is programmed');
  if (invalid.length)
    return [draft(ConditionType.Accepted, true, ListenerSetReason.ListenersNotValid, `Some listeners are not valid: ${names(invalid)}`), programmed];
  return [draft(ConditionType.Accepted, true, ListenerSetReason.Accepted, 'The ListenerSet is attached to its Gateway'), programmed];
}

/** The status of every ListenerSet naming the Gateway; `previousFor` gives what was written before. */
export function listenerSetStatusesOf(
  analysis: GatewayAnalysis, now: string, previousFor: (namespace: string, name: string) => Partial<ListenerSetStatus> | undefined,
): ListenerSetStatusEntry[] {
  if (!analysis.listenerSets.length) return [];
  const counts = attachedRouteCounts(analysis);
  return analysis.listenerSets.map((s) => {
    const generation = s.listenerSet.metadata.generation;
    const ls = analysis.listeners.filter((l) => l.listenerSet?.namespace === s.namespace && l.listenerSet.name === s.name);
    const previous = previousFor(s.namespace, s.name);
    const prevListeners = new Map<string, { conditions?: Condition[] }>((previous?.listeners ?? []).map((l) => [l?.name, l]));
    const status: ListenerSetStatus = {
      conditions: mergeConditions(conditionsOf(analysis, s, ls), previous?.conditions, { generation, now, owned: OWNED_CONDITION_TYPES.listenerSet }),
    };
    if (s.allowed) status.listeners = ls.map((l) => listenerStatusOf(l, counts[l.index], prevListeners.get(l.name), generation, now));
    return { namespace: s.namespace, name: s.name, status };
  });
}

/** status.attachedListenerSets: the ListenerSets attached and accepted, or undefined when the Gateway takes none and none names it. */
export function attachedListenerSetsOf(analysis: GatewayAnalysis, statuses: readonly ListenerSetStatusEntry[]): number | undefined {
  const from = analysis.gateway.spec?.allowedListeners?.namespaces?.from ?? 'None';
  if (from === 'None' && !statuses.length) return undefined;
  return statuses.filter((e) => e.status.conditions?.some((c) => c.type === ConditionType.Accepted && c.status === 'True')).length;
}
