// Gateway status from the analysis of its listeners and the routes attached to them.
import type { Condition, Gateway, GatewayStatus, ListenerStatus } from '../model/objects';
import type { GatewayAnalysis } from '../attach/attach';
import type { ListenerAnalysis } from '../attach/listeners';
import type { ResolvedReferences } from '../refs/resolution';
import { draft, mergeConditions, type ConditionDraft } from './conditions';
import { ConditionType, GatewayReason, OWNED_CONDITION_TYPES } from './reasons';

export type { GatewayStatus, ListenerStatus };

/**
 * Per listener of the merged list, the routes its attachedRoutes counts. The spec: the count is set
 * on listeners that are not accepted too, and includes routes that are themselves not accepted, as
 * long as allowedRoutes and the parentRef select them.
 */
export function attachedRouteCounts(analysis: GatewayAnalysis): number[] {
  const attached = analysis.listeners.map(() => new Set<object>());
  for (const o of analysis.outcomes) for (const li of o.counted) attached[li].add(o.route);
  return attached.map((s) => s.size);
}

/** One listener's status.listeners entry (a Gateway's or a ListenerSet's: the shapes are one). */
export function listenerStatusOf(
  l: ListenerAnalysis, attachedRoutes: number, previous: { conditions?: Condition[] } | undefined, generation: number | undefined, now: string,
): ListenerStatus {
  const ds = [l.accepted, l.programmed, l.resolvedRefs, l.conflicted];
  if (l.overlappingTLS) ds.push(l.overlappingTLS);
  return {
    name: l.name,
    supportedKinds: l.supportedKinds.map((k) => ({ group: k.group, kind: k.kind })),
    attachedRoutes,
    conditions: mergeConditions(ds, previous?.conditions, { generation, now, owned: OWNED_CONDITION_TYPES.listener }),
  };
}

/**
 * `attachedListenerSets`: how many ListenerSets are attached and accepted (undefined: the field is
 * left out). `counts`: attachedRouteCounts(analysis), when the caller has them (the counts are all
 * this reads of the routes).
 */
export function gatewayStatusOf(
  analysis: Pick<GatewayAnalysis, 'gateway' | 'verdict' | 'listeners'> & Partial<Pick<GatewayAnalysis, 'outcomes'>>, refs: Pick<ResolvedReferences, 'clientCertificate'>,
  now: string, previous: Partial<GatewayStatus> | undefined, attachedListenerSets?: number, counts?: readonly number[],
): GatewayStatus {
  const { gateway, verdict } = analysis;
  // ListenerSet listeners have their status on their ListenerSet, and do not make the Gateway valid or not
  const listeners = analysis.listeners.filter((l) => !l.listenerSet);
  const generation = gateway.metadata.generation;
  const list = (ls: ListenerAnalysis[]) => ls.map((l) => `"${l.name}"`).join(', ');

  const accepted: ConditionDraft = (() => {
    if (!verdict.accepted) return draft(ConditionType.Accepted, false, verdict.reason!, verdict.message!);
    if (!listeners.length) return draft(ConditionType.Accepted, false, GatewayReason.ListenersNotValid, 'The Gateway has no listeners');
    const invalid = listeners.filter((l) => !l.valid);
    const acceptedLs = listeners.filter((l) => l.isAccepted);
    if (!acceptedLs.length)
      return draft(ConditionType.Accepted, false, GatewayReason.ListenersNotValid, `No listener is valid: ${describe(invalid)}`);
    if (invalid.length) {
      const valid = listeners.filter((l) => l.valid);
      const head = valid.length ? `${plural(valid.length, 'Listener', 'Listeners')} ${list(valid)} ${valid.length > 1 ? 'are' : 'is'} valid; ` : 'No listener can be programmed; ';
      return draft(ConditionType.Accepted, true, GatewayReason.ListenersNotValid,
        `${head}not valid: ${describe(invalid)}`);
    }
    return draft(ConditionType.Accepted, true, GatewayReason.Accepted, 'The Gateway is accepted');
  })();

  const programmed: ConditionDraft = (() => {
    if (accepted.status !== 'True') return draft(ConditionType.Programmed, false, GatewayReason.Invalid, `The Gateway is not accepted: ${accepted.message}`);
    if (verdict.addressNotUsable) return draft(ConditionType.Programmed, false, GatewayReason.AddressNotUsable,
      verdict.addressProblem ? `${verdict.addressNotUsable}; ${verdict.addressProblem}` : verdict.addressNotUsable);
    if (verdict.addressProblem) return draft(ConditionType.Programmed, false, GatewayReason.AddressNotAssigned, verdict.addressProblem);
    if (!listeners.some((l) => l.valid)) return draft(ConditionType.Programmed, false, GatewayReason.Invalid, 'No listener can be programmed');
    return draft(ConditionType.Programmed, true, GatewayReason.Programmed, 'The Gateway is programmed');
  })();

  const resolvedRefs: ConditionDraft = (() => {
    const client = refs.clientCertificate;
    if (client && !client.ok)
      return draft(ConditionType.ResolvedRefs, false,
        client.problem === 'notPermitted' ? GatewayReason.RefNotPermitted : GatewayReason.InvalidClientCertificateRef,
        `${client.path}: ${client.message}`);
    const unresolved = listeners.filter((l) => l.resolvedRefs.status === 'False');
    if (unresolved.length)
      return draft(ConditionType.ResolvedRefs, false, GatewayReason.ListenersNotResolved,
        `References of ${plural(unresolved.length, 'listener', 'listeners')} ${list(unresolved)} are not resolved`);
    return draft(ConditionType.ResolvedRefs, true, GatewayReason.ResolvedRefs, 'All references are resolved');
  })();

  const drafts = [accepted, programmed, resolvedRefs];
  const insecure = insecureFrontendValidation(gateway);
  if (insecure) drafts.push(draft(ConditionType.InsecureFrontendValidationMode, true, GatewayReason.ConfigurationChanged, insecure));

  counts ??= attachedRouteCounts(analysis as GatewayAnalysis);
  const prevListeners = new Map<string, { conditions?: Condition[] }>((previous?.listeners ?? []).map((l) => [l?.name, l]));
  const out: GatewayStatus = {
    conditions: mergeConditions(drafts, previous?.conditions, { generation, now, owned: OWNED_CONDITION_TYPES.gateway }),
    listeners: listeners.map((l) => listenerStatusOf(l, counts[l.index], prevListeners.get(l.name), generation, now)),
  };
  if (attachedListenerSets !== undefined) out.attachedListenerSets = attachedListenerSets;
  if (verdict.addresses.length) return { addresses: verdict.addresses as GatewayStatus['addresses'], ...out };
  return out;
}

function plural(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}

function describe(ls: ListenerAnalysis[]): string {
  return ls.map((l) => {
    const c = l.accepted.status === 'False' ? l.accepted : l.programmed;
    return `"${l.name}" (${c.reason})`;
  }).join(', ');
}

function insecureFrontendValidation(gateway: Gateway): string | undefined {
  const fe = gateway.spec?.tls?.frontend;
  if (!fe) return undefined;
  const where: string[] = [];
  if (fe.default?.validation?.mode === 'AllowInsecureFallback') where.push('spec.tls.frontend.default');
  (fe.perPort ?? []).forEach((p, i) => {
    if (p?.tls?.validation?.mode === 'AllowInsecureFallback') where.push(`spec.tls.frontend.perPort[${i}] (port ${p.port})`);
  });
  return where.length
    ? `Client certificate validation allows insecure fallback in ${where.join(', ')}: connections without a valid client certificate are accepted`
    : undefined;
}
