// Static analysis of manifests, as `istioctl analyze` does for Istio: what the reconciler would
// find wrong once they are applied, said before they are. It runs the translator's own steps
// (validateGateway, attachRoutes, routeRefs, orderGateway) over the manifests laid over what is
// stored, and reports on the manifests' objects only. Without stored objects the manifests are the
// whole world, except that a Gateway's missing GatewayClass is taken to be this controller's (the
// server creates one), so its listeners and routes are still checked.
import type { BackendTLSPolicy, Gateway, GatewayClass, K8sObject, ParentReference, Route } from '../model/objects';
import { isRouteKind } from '../model/kinds';
import { worldOf } from '../model/world';
import { streamKey } from '../objects/keys';
import { attachmentOf, attachRoutes, validateGateway, type ParentOutcome } from '../attach/attach';
import { matchListenerHostname } from '../attach/hostnames';
import { protocolHasHostname } from '../attach/kinds';
import type { ListenerAnalysis } from '../attach/listeners';
import { GATEWAY_GROUP, key, refName, viewOf, type WorldView } from '../refs/lookup';
import { routeRefs } from '../refs/route-refs';
import { policyVerdict } from '../refs/backend-tls';
import { orderGateway } from '../precedence/order';
import { isOurClass } from '../status/gatewayclass';
import { ListenerReason, RouteReason } from '../status/reasons';
import { routeHostnames } from '../model/route-parts';
import { TranslationContext } from '../translate/context';
import { tallyShadowing, type ShadowTally } from './shadowing';
import type { AnalysisWarning, AnalysisWarningCode } from './types';

export interface AnalyzeInput {
  /** the manifests' objects, defaulted as validation leaves them */
  manifest: readonly K8sObject[];
  /** the stored objects the manifests are applied over; absent: the manifests are all there is */
  stored?: readonly K8sObject[];
  controllerName: string;
}

// the analysis writes no status, so no clock is read and none is needed
const NO_TIME = '1970-01-01T00:00:00.000Z';

const streamOf = (o: K8sObject) => streamKey(o.kind, o.metadata.namespace ?? '', o.metadata.name);

export function analyzeManifests(input: AnalyzeInput): AnalysisWarning[] {
  const { controllerName } = input;
  const offline = input.stored === undefined;
  const objects = new Map<string, K8sObject>();
  for (const o of input.stored ?? []) objects.set(streamOf(o), o);
  const order = new Map<string, number>();
  input.manifest.forEach((o, i) => {
    objects.set(streamOf(o), o);
    if (!order.has(streamOf(o))) order.set(streamOf(o), i);
  });
  const world = worldOf([...objects.values(), ...(offline ? assumedClasses(objects, controllerName) : [])]);
  const view = viewOf(world, new TranslationContext());
  const out = new Warnings(order);

  const shadows = new Map<string, ShadowTally>();
  for (const gateway of world.gateways) {
    const inManifest = order.has(streamOf(gateway as K8sObject));
    const gc = view.index.gatewayClasses.get(gateway.spec?.gatewayClassName ?? '');
    if (!isOurClass(gc, controllerName)) {
      if (inManifest) classWarning(out, gateway, gc, controllerName);
      continue;
    }
    const validated = validateGateway(view, { namespace: gateway.metadata.namespace, name: gateway.metadata.name }, { controllerName, now: NO_TIME });
    if (!validated) continue;
    // a listener's warning is on the object that declares it: the Gateway, or its ListenerSet
    const owners = new Map((world.listenerSets ?? []).map((ls) => [key(ls.metadata.namespace, ls.metadata.name), ls]));
    const ownIndex = new Map<string, number>();
    validated.listeners.forEach((l) => {
      const ownerKey = l.listenerSet ? key(l.listenerSet.namespace, l.listenerSet.name) : '';
      const i = ownIndex.get(ownerKey) ?? 0;
      ownIndex.set(ownerKey, i + 1);
      const owner = l.listenerSet ? owners.get(ownerKey) : gateway;
      if (owner && order.has(streamOf(owner as K8sObject))) listenerWarning(out, owner as K8sObject, l, i);
    });
    for (const s of validated.listenerSets)
      if (!s.allowed && order.has(streamOf(s.listenerSet as K8sObject)))
        out.add(s.listenerSet as K8sObject, 'DanglingParentRef', 'spec.parentRef', `not attached: ${s.message}`);
    const analysis = { ...validated, ...attachRoutes(view, validated) };
    for (const o of analysis.outcomes) if (order.has(streamOf(o.route as K8sObject))) parentWarnings(out, gateway, validated.listeners, o);
    for (const listener of orderGateway(view.ctx, attachmentOf(analysis, view.ctx))) tallyShadowing(listener, shadows);
  }

  for (const o of input.manifest) {
    if (!isRouteKind(o.kind)) continue;
    const route = o as Route;
    missingParents(out, view, route, offline);
    for (const p of routeRefs(view, route).problems) out.add(o, refCode(p.reason), p.path, p.message);
  }
  for (const o of input.manifest) if (o.kind === 'BackendTLSPolicy') policyWarnings(out, view, o as BackendTLSPolicy);
  for (const [id, t] of shadows) {
    if (t.shadowed === 0 || t.shadowed < t.entries || !t.by) continue;
    const [rk, rule] = id.split('#');
    const route = objects.get(rk);
    if (!route || !order.has(rk)) continue;
    const by = t.by;
    out.add(route, 'ShadowedRule', `spec.rules[${rule}]`,
      `never matches: every match of the rule, for every hostname it serves, is won by ${by.kind} "${refName(by.namespace, by.name)}" rule ${by.ruleIndex} (${by.figures}), which ranks first and accepts all its requests`);
  }
  return out.sorted();
}

/** A placeholder GatewayClass of ours for each class the Gateways name but nothing holds. */
function assumedClasses(objects: Map<string, K8sObject>, controllerName: string): GatewayClass[] {
  const names = new Set<string>();
  for (const o of objects.values()) {
    const name = o.kind === 'Gateway' ? o.spec?.gatewayClassName : undefined;
    if (typeof name === 'string' && !objects.has(streamKey('GatewayClass', '', name))) names.add(name);
  }
  return [...names].map((name) => ({ apiVersion: `${GATEWAY_GROUP}/v1`, kind: 'GatewayClass', metadata: { name }, spec: { controllerName } }) as GatewayClass);
}

function classWarning(out: Warnings, gateway: Gateway, gc: GatewayClass | undefined, controllerName: string): void {
  const name = gateway.spec?.gatewayClassName ?? '';
  if (!gc) out.add(gateway as K8sObject, 'GatewayClassNotFound', 'spec.gatewayClassName', `GatewayClass "${name}" does not exist: no controller will report on this Gateway or attach routes to it`);
  else out.add(gateway as K8sObject, 'GatewayClassOfAnotherController', 'spec.gatewayClassName',
    `GatewayClass "${name}" belongs to controller "${gc.spec?.controllerName}", not this one ("${controllerName}"): this server will not report on the Gateway or route its traffic`);
}

/** `index`: the listener's index in the object that declares it (`owner`, a Gateway or a ListenerSet). */
function listenerWarning(out: Warnings, owner: K8sObject, l: ListenerAnalysis, index: number): void {
  if (l.valid) return;
  const path = `spec.listeners[${index}]`;
  const refs = l.resolvedRefs;
  if (refs.status === 'False') {
    const code: AnalysisWarningCode = refs.reason === ListenerReason.RefNotPermitted ? 'RefNotPermitted' : 'ListenerProblem';
    out.add(owner, code, path, `listener "${l.name}": ${refs.message}`);
    return;
  }
  const c = !l.isAccepted ? l.accepted : l.isConflicted ? l.conflicted : l.programmed;
  out.add(owner, 'ListenerProblem', path, `listener "${l.name}": ${c.reason}: ${c.message}`);
}

/** An unattached parentRef, or hostnames of an attached one that no selected listener admits. */
function parentWarnings(out: Warnings, gateway: Gateway, listeners: ListenerAnalysis[], o: ParentOutcome): void {
  const route = o.route as K8sObject;
  const path = `spec.parentRefs[${o.parentRefIndex}]`;
  if (!o.accepted) {
    if (o.reason === RouteReason.NoMatchingListenerHostname)
      out.add(route, 'HostnameNotAdmitted', 'spec.hostnames', `${o.message} of Gateway "${refName(gateway.metadata.namespace, gateway.metadata.name)}" (${path})`);
    else if (o.reason !== RouteReason.UnsupportedValue) out.add(route, 'DanglingParentRef', path, `not attached: ${o.message}`);
    return;
  }
  const attached = [...o.attached.keys()].map((i) => listeners[i]);
  routeHostnames(o.route).forEach((h, i) => {
    if (typeof h !== 'string') return;
    const admitted = attached.some((l) => matchListenerHostname(protocolHasHostname(l.protocol) ? l.hostname : undefined, [h]).ok);
    if (!admitted)
      out.add(route, 'HostnameNotAdmitted', `spec.hostnames[${i}]`,
        `"${h}" is admitted by no listener of Gateway "${refName(gateway.metadata.namespace, gateway.metadata.name)}" the route attaches to (${attached.map((l) => `"${l.name}": ${l.hostname ?? 'any'}`).join(', ')}): requests for it are not routed there`);
  });
}

/** parentRefs that name no Gateway or ListenerSet there is, or a kind of parent this controller does not have. */
function missingParents(out: Warnings, view: WorldView, route: Route, offline: boolean): void {
  const refs: readonly Partial<ParentReference>[] = route.spec?.parentRefs ?? [];
  refs.forEach((p, i) => {
    const path = `spec.parentRefs[${i}]`;
    if ((p.group ?? GATEWAY_GROUP) === GATEWAY_GROUP && p.kind === 'ListenerSet') {
      const ns = p.namespace ?? route.metadata.namespace ?? '';
      if (!(view.world.listenerSets ?? []).some((ls) => ls.metadata.namespace === ns && ls.metadata.name === p.name))
        out.add(route as K8sObject, 'DanglingParentRef', path, `ListenerSet "${refName(ns, p.name ?? '')}" does not exist${offline ? ' in the manifests' : ''}`);
      return;
    }
    if ((p.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP || (p.kind ?? 'Gateway') !== 'Gateway') {
      out.add(route as K8sObject, 'DanglingParentRef', path, `parent kind ${p.kind ?? 'Gateway'}${p.group !== undefined && p.group !== GATEWAY_GROUP ? ` (group ${p.group || 'core'})` : ''} is not supported: only Gateways and ListenerSets are parents here`);
      return;
    }
    const ns = p.namespace ?? route.metadata.namespace ?? '';
    if (!view.index.gateways.has(key(ns, p.name ?? '')))
      out.add(route as K8sObject, 'DanglingParentRef', path, `Gateway "${refName(ns, p.name ?? '')}" does not exist${offline ? ' in the manifests' : ''}`);
  });
}

/** A BackendTLSPolicy that applies to nothing, loses a conflict, or would refuse its backends' traffic. */
function policyWarnings(out: Warnings, view: WorldView, policy: BackendTLSPolicy): void {
  const o = policy as K8sObject;
  const ns = policy.metadata.namespace ?? '';
  (policy.spec?.targetRefs ?? []).forEach((t, i) => {
    if ((t.group ?? '') !== '' || t.kind !== 'Service') {
      out.add(o, 'PolicyProblem', `spec.targetRefs[${i}]`, `${t.kind}${t.group ? ` (group ${t.group})` : ''} "${t.name}" is not supported: a BackendTLSPolicy applies to core Services here`);
      return;
    }
    const svc = view.index.services.get(key(ns, t.name));
    if (!svc) out.add(o, 'PolicyProblem', `spec.targetRefs[${i}]`, `Service "${refName(ns, t.name)}" does not exist: the policy applies to nothing there`);
    else if (t.sectionName && !(svc.spec?.ports ?? []).some((p) => p?.name === t.sectionName))
      out.add(o, 'PolicyProblem', `spec.targetRefs[${i}].sectionName`, `Service "${refName(ns, t.name)}" has no port named "${t.sectionName}": the policy applies to nothing there`);
  });
  const v = policyVerdict(view, policy);
  if (!v.resolvedRefs.ok) out.add(o, 'PolicyProblem', 'spec.validation.caCertificateRefs', `${v.resolvedRefs.reason}: ${v.resolvedRefs.message}`);
  if (!v.accepted.ok) out.add(o, 'PolicyProblem', v.accepted.reason === 'Conflicted' ? 'spec.targetRefs' : 'spec.validation',
    `${v.accepted.reason}: ${v.accepted.message}${v.accepted.reason === 'NoValidCACertificate' ? '; the backends it applies to would refuse every request' : ''}`);
}

function refCode(reason: string): AnalysisWarningCode {
  if (reason === RouteReason.RefNotPermitted) return 'RefNotPermitted';
  if (reason === RouteReason.BackendNotFound) return 'BackendNotFound';
  return 'UnsupportedReference';
}

const PATHS = new Intl.Collator('en', { numeric: true });

/** The warnings, once each, in the manifests' order, and by path within an object. */
class Warnings {
  private readonly items: { at: number; w: AnalysisWarning }[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly order: Map<string, number>) {}

  add(o: K8sObject, code: AnalysisWarningCode, path: string, text: string): void {
    const ns = o.metadata.namespace;
    const message = `${o.kind} ${refName(ns, o.metadata.name)}${path ? ` ${path}` : ''}: ${text}`;
    if (this.seen.has(message)) return;
    this.seen.add(message);
    this.items.push({
      at: this.order.get(streamOf(o)) ?? Number.MAX_SAFE_INTEGER,
      w: { code, kind: o.kind, ...(ns ? { namespace: ns } : {}), name: o.metadata.name, path, message },
    });
  }

  sorted(): AnalysisWarning[] {
    return [...this.items].sort((a, b) => a.at - b.at || PATHS.compare(a.w.path, b.w.path)).map((x) => x.w);
  }
}
