// Why an object has no status from this controller. A controller writes status only on what it
// owns (a Gateway of its class, the status.parents entries for its Gateways), so a Gateway of
// another controller's class, or a route that names no Gateway of ours, stays without one forever.
// This says which, from plain data: the object, the Gateways its parentRefs name and the classes
// involved, as the caller read them.
import type { Gateway, GatewayClass, K8sObject, ListenerSet, ParentReference } from '../model/objects';
import { isRouteKind } from '../model/kinds';
import { GATEWAY_GROUP, key, refName } from '../refs/lookup';
import { isOurClass } from '../status/gatewayclass';
import type { StatusExplanation, StatusExplanationEntry } from './types';

export interface ExplainInput {
  object: K8sObject;
  /** the Gateways the object's parentRefs name (those that exist) */
  gateways: readonly Gateway[];
  /** the GatewayClasses of the object or of those Gateways (those that exist) */
  gatewayClasses: readonly GatewayClass[];
  /** the ListenerSets the object's parentRefs name (those that exist); their Gateways are among `gateways` */
  listenerSets?: readonly ListenerSet[];
  controllerName: string;
}

type ParentRefInput = Partial<ParentReference>;

type Ref = { namespace: string; name: string };

/**
 * The Gateways ("namespace/name"), GatewayClasses and ListenerSets an explanation of this object
 * needs read (then the Gateways of those ListenerSets: `gatewayOfListenerSet`).
 */
export function explainNeeds(object: K8sObject): { gateways: Ref[]; gatewayClasses: string[]; listenerSets: Ref[] } {
  if (object.kind === 'Gateway') return { gateways: [], gatewayClasses: [String(object.spec?.gatewayClassName ?? '')], listenerSets: [] };
  if (object.kind === 'GatewayClass') return { gateways: [], gatewayClasses: [object.metadata.name], listenerSets: [] };
  if (object.kind === 'ListenerSet') {
    const g = listenerSetGateway(object);
    return { gateways: g ? [g] : [], gatewayClasses: [], listenerSets: [] };
  }
  if (!isRouteKind(object.kind)) return { gateways: [], gatewayClasses: [], listenerSets: [] };
  const ns = object.metadata.namespace ?? '';
  const named = (kind: string) => parentRefsOf(object).filter((p) => isParentRef(p, kind)).map((p) => ({ namespace: p.namespace ?? ns, name: String(p.name ?? '') }));
  return { gateways: named('Gateway'), gatewayClasses: [], listenerSets: named('ListenerSet') };
}

/** The Gateway a ListenerSet's parentRef names, if it names one. */
export function listenerSetGateway(ls: { metadata: { namespace?: string }; spec?: { parentRef?: ParentRefInput } }): Ref | undefined {
  const p = ls.spec?.parentRef;
  if (!p || !isParentRef(p, 'Gateway') || !p.name) return undefined;
  return { namespace: p.namespace ?? ls.metadata.namespace ?? '', name: String(p.name) };
}

export function explainStatus(input: ExplainInput): StatusExplanation {
  const { object, controllerName } = input;
  const classes = new Map(input.gatewayClasses.map((c) => [c.metadata.name, c]));
  const gateways = new Map(input.gateways.map((g) => [key(g.metadata.namespace, g.metadata.name), g]));
  const out: StatusExplanation = {
    kind: object.kind, ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    name: object.metadata.name, controllerName, entries: [],
  };
  const reported = (what: string): StatusExplanationEntry => ({ reason: 'Reported', message: `${what} carries this controller's conditions` });
  const pending = (what: string): StatusExplanationEntry => ({
    reason: 'Pending', message: `${what} is this controller's; the reconciler has not reported on it yet`,
  });

  if (object.kind === 'GatewayClass') {
    const theirs = object.spec?.controllerName;
    out.entries.push(theirs !== controllerName
      ? { reason: 'GatewayClassOfAnotherController', message: `GatewayClass "${object.metadata.name}" names controller "${theirs}", not this one ("${controllerName}"): its status is that controller's to write` }
      : hasConditions(object.status?.conditions) ? reported('The GatewayClass') : pending('The GatewayClass'));
    return out;
  }
  if (object.kind === 'Gateway') {
    const problem = classProblem(classes, String(object.spec?.gatewayClassName ?? ''), controllerName, 'The Gateway');
    out.entries.push(problem ?? (hasConditions(object.status?.conditions) ? reported('The Gateway') : pending('The Gateway')));
    return out;
  }
  // a ListenerSet's status is written by the controller of the Gateway it names
  const viaGateway = (ref: Ref | undefined, who: string): StatusExplanationEntry | undefined => {
    if (!ref) return { reason: 'UnsupportedParentKind', message: `${who} names no Gateway (group ${GATEWAY_GROUP}): no controller reports on it` };
    const gw = gateways.get(key(ref.namespace, ref.name));
    const named = `Gateway "${refName(ref.namespace, ref.name)}"`;
    if (!gw) return { reason: 'GatewayNotFound', message: `${who} names ${named}, which does not exist` };
    return classProblem(classes, String(gw.spec?.gatewayClassName ?? ''), controllerName, `${who}: ${named}`);
  };
  if (object.kind === 'ListenerSet') {
    const problem = viaGateway(listenerSetGateway(object), 'spec.parentRef');
    out.entries.push(problem ?? (hasConditions(object.status?.conditions) ? reported('The ListenerSet') : pending('The ListenerSet')));
    return out;
  }
  if (object.kind === 'BackendTLSPolicy') {
    // its ancestors are the Gateways that reach its Services: written by their recomputes, when there are any
    const ours = (object.status?.ancestors ?? []).filter((a: { controllerName?: string }) => a?.controllerName === controllerName);
    out.entries.push(ours.length ? reported(`The BackendTLSPolicy (for ${ours.length} Gateway${ours.length > 1 ? 's' : ''})`) : {
      reason: 'NoAncestor',
      message: 'No Gateway of this controller reaches a Service the policy targets (through an accepted route\'s backendRefs or mirrors), so none reports on it. Point a route attached to such a Gateway at a targeted Service (in the policy\'s namespace)',
    });
    return out;
  }
  if (!isRouteKind(object.kind)) return out;
  const listenerSets = new Map((input.listenerSets ?? []).map((l) => [key(l.metadata.namespace, l.metadata.name), l]));

  const parentRefs = parentRefsOf(object);
  if (parentRefs.length === 0) {
    out.entries.push({ reason: 'NoParentRefs', message: `The ${object.kind} has no parentRefs: it attaches to no Gateway, and no controller reports on it. Add spec.parentRefs naming a Gateway` });
    return out;
  }
  const routeNs = object.metadata.namespace ?? '';
  parentRefs.forEach((p, i) => {
    const at = { parentRefIndex: i, parentRef: echo(p) };
    const push = (e: StatusExplanationEntry) => out.entries.push({ ...e, ...at });
    if (isParentRef(p, 'ListenerSet')) {
      const ns = p.namespace ?? routeNs;
      const named = `ListenerSet "${refName(ns, String(p.name ?? ''))}"`;
      const ls = listenerSets.get(key(ns, String(p.name ?? '')));
      if (!ls) return push({ reason: 'ListenerSetNotFound', message: `spec.parentRefs[${i}] names ${named}, which does not exist` });
      const problem = viaGateway(listenerSetGateway(ls), `spec.parentRefs[${i}] (${named}) spec.parentRef`);
      if (problem) return push(problem);
      const entry = (object.status?.parents ?? []).find((s: { controllerName?: string; parentRef?: ParentRefInput }) =>
        s?.controllerName === controllerName && sameParent(s.parentRef, p, routeNs));
      return push(entry ? reported(`spec.parentRefs[${i}] (${named})`) : pending(`spec.parentRefs[${i}] (${named})`));
    }
    if (!isGatewayRef(p)) {
      push({ reason: 'UnsupportedParentKind', message: `spec.parentRefs[${i}] is a ${p.kind ?? 'Gateway'}${p.group !== undefined && p.group !== GATEWAY_GROUP ? ` (group ${p.group || 'core'})` : ''}; this controller takes only Gateways and ListenerSets (group ${GATEWAY_GROUP}) as parents` });
      return;
    }
    const ns = p.namespace ?? routeNs;
    const gw = gateways.get(key(ns, String(p.name ?? '')));
    const named = `Gateway "${refName(ns, String(p.name ?? ''))}"`;
    if (!gw) {
      push({ reason: 'GatewayNotFound', message: `spec.parentRefs[${i}] names ${named}, which does not exist` });
      return;
    }
    const problem = classProblem(classes, String(gw.spec?.gatewayClassName ?? ''), controllerName, `spec.parentRefs[${i}]: ${named}`);
    if (problem) return push(problem);
    const entry = (object.status?.parents ?? []).find((s: { controllerName?: string; parentRef?: ParentRefInput }) =>
      s?.controllerName === controllerName && sameParent(s.parentRef, p, routeNs));
    push(entry ? reported(`spec.parentRefs[${i}] (${named})`) : pending(`spec.parentRefs[${i}] (${named})`));
  });
  return out;
}

function classProblem(classes: Map<string, GatewayClass>, className: string, controllerName: string, who: string): StatusExplanationEntry | undefined {
  const gc = classes.get(className);
  if (!gc) return { reason: 'GatewayClassNotFound', message: `${who} names GatewayClass "${className}", which does not exist: no controller reports on it. Create the class with spec.controllerName "${controllerName}", or use an existing class` };
  if (!isOurClass(gc, controllerName))
    return { reason: 'GatewayClassOfAnotherController', message: `${who} is of GatewayClass "${className}", whose controller is "${gc.spec?.controllerName}", not this one ("${controllerName}"): its status is that controller's to write` };
  return undefined;
}

function hasConditions(conditions: unknown): boolean {
  return Array.isArray(conditions) && conditions.length > 0;
}

function parentRefsOf(object: K8sObject): ParentRefInput[] {
  const refs = object.spec?.parentRefs;
  return Array.isArray(refs) ? refs.filter((p): p is ParentRefInput => !!p && typeof p === 'object') : [];
}

function isParentRef(p: ParentRefInput, kind: string): boolean {
  return (p.group ?? GATEWAY_GROUP) === GATEWAY_GROUP && (p.kind ?? 'Gateway') === kind;
}

function isGatewayRef(p: ParentRefInput): boolean {
  return isParentRef(p, 'Gateway');
}

function sameParent(a: ParentRefInput | undefined, b: ParentRefInput, routeNs: string): boolean {
  return !!a && (a.kind ?? 'Gateway') === (b.kind ?? 'Gateway') && (a.namespace ?? routeNs) === (b.namespace ?? routeNs) && a.name === b.name
    && (a.sectionName ?? '') === (b.sectionName ?? '') && (a.port ?? 0) === (b.port ?? 0);
}

function echo(p: ParentRefInput): ParentReference {
  return { group: p.group ?? GATEWAY_GROUP, kind: p.kind ?? 'Gateway', ...p } as ParentReference;
}
