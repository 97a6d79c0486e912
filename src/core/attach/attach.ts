// Attachment: parentRefs x listeners. A route attaches to a Gateway through each parentRef that
// names it; a parentRef selects the listeners its sectionName and port name (all of them when it
// names neither); a selected listener admits the route when it supports the route's kind, admits
// the route's namespace, and (for HTTP, GRPC and TLS routes) shares a hostname with it. Consent is
// two-sided: the route names the parent, the listener admits the route. A parentRef naming the
// Gateway selects among the Gateway's own listeners only; one naming a ListenerSet of the Gateway
// selects among that ListenerSet's listeners (its status entry is for the ListenerSet).
import { SmallMap } from '../model/small-map';
import { compact } from '../model/compact';
import type {
  AttachedRoute, GatewayAttachment, ListenerAttachment, ObjectRef, RejectedRoute, TranslateOptions,
} from '../model/world';
import type { Gateway, GatewayClass, ParentReference, Route } from '../model/objects';
import { isRouteKind, type RouteKind } from '../model/kinds';
import { routeHostnames } from '../model/route-parts';
import { noItems, sharedIndices, trimmed } from '../model/trimmed';
import { lastShared } from '../model/last-shared';
import { RouteReason } from '../status/reasons';
import { featureSet } from '../status/features';
import { GATEWAY_GROUP, cmp, key, refName, type WorldView } from '../refs/lookup';
import { ageAndName, byAgeThenName } from '../precedence/ladder';
import { memoSlot, type TranslationContext } from '../translate/context';
import { analyzeListeners, type ListenerAnalysis } from './listeners';
import { gatewayClassOf, gatewayVerdict, isOurGateway, type GatewayVerdict } from './gateway';
import { poolEntries } from './addresses';
import { listenerSetsOf, type ListenerSetVerdict } from './listener-sets';
import { listenerSetStatusMode } from '../status/listener-set-mode';
import { kindHasHostnames, protocolHasHostname } from './kinds';
import { matchListenerHostname } from './hostnames';
import { unsupportedRules } from './rules';
import { keepRecent } from '../model/recent';

/** A parentRef as a route holds it: validated, but group and kind may still be missing. */
type ParentRefInput = Partial<ParentReference>;

const MAX_PARENTS_PER_ROUTE = 32;
// the listeners a refused route is attached to: none, one map for all (nothing changes an outcome)
const NO_LISTENERS: ReadonlyMap<number, string[]> = new SmallMap();

export interface AttachOptions extends TranslateOptions {
  /** features the GatewayClass claims; default: SUPPORTED_FEATURES */
  supportedFeatures?: readonly string[];
  /** ports the proxies cannot listen on (listeners on them: Accepted=False, PortUnavailable) */
  unavailablePorts?: readonly number[];
  /** the addresses the operator lets Gateways use (SWITCHYARD_ADDRESS_POOL); none when absent */
  addressPool?: readonly string[];
}

/** The outcome of one parentRef of one route that names this Gateway. */
export interface ParentOutcome {
  route: Route;
  kind: RouteKind;
  parentRefIndex: number;
  /** the spec parentRef with group and kind defaulted, as status.parents[].parentRef echoes it */
  parentRef: ParentReference;
  accepted: boolean;
  reason: string;
  message: string;
  /** listener index -> the hostnames the route serves there */
  attached: ReadonlyMap<number, string[]>;
  /**
   * the listeners whose attachedRoutes count this route: every listener its parentRef and their
   * allowedRoutes and hostnames select, including listeners that are not accepted (in conflict) and
   * whether or not the route itself is accepted, as the spec asks of the count
   */
  counted: number[];
  /** rules dropped for unsupported values (PartiallyInvalid when some remain) */
  droppedRules: Map<number, string>;
}

/** The first step's value: a Gateway of ours, validated, with its listeners validated. */
export interface ValidatedGateway {
  gateway: Gateway;
  gatewayClass: GatewayClass;
  verdict: GatewayVerdict;
  /** the Gateway's own listeners, then those of the ListenerSets it allows, in precedence order */
  listeners: ListenerAnalysis[];
  /** every ListenerSet naming the Gateway, in precedence order, allowed or not */
  listenerSets: ListenerSetVerdict[];
  /** the route kinds the GatewayClass claims (feature name = kind) */
  features: ReadonlySet<string>;
}

/** The attach step's value: the routes that name the Gateway and the outcome of each parentRef. */
export interface RouteAttachments {
  /** routes that name this Gateway or one of its ListenerSets in a parentRef, sorted by kind, namespace, name */
  routes: Route[];
  outcomes: ParentOutcome[];
}

export type GatewayAnalysis = ValidatedGateway & RouteAttachments;

function findGateway(view: WorldView, ref: Pick<ObjectRef, 'namespace' | 'name'>): Gateway | undefined {
  return view.index.gateways.get(key(ref.namespace, ref.name));
}

/** Does this parentRef of the route name the object (a Gateway, or a ListenerSet)? */
function namesParent(route: Route, parentRef: ParentRefInput | undefined, kind: 'Gateway' | 'ListenerSet', namespace: string | undefined, name: string): boolean {
  return !!parentRef && (parentRef.group ?? GATEWAY_GROUP) === GATEWAY_GROUP && (parentRef.kind ?? 'Gateway') === kind
    && (parentRef.namespace ?? route.metadata.namespace) === namespace && parentRef.name === name;
}

/** A parent a parentRef can name: the Gateway or one of its ListenerSets, with the listeners it selects among. */
interface Parent {
  kind: 'Gateway' | 'ListenerSet';
  namespace: string;
  name: string;
  /** `Gateway "ns/name"`, for messages */
  label: string;
  listeners: ListenerAnalysis[];
  /** why no route can attach through it (a ListenerSet the Gateway does not allow) */
  refused?: string;
}

function parentsOf(validated: ValidatedGateway): Parent[] {
  const { gateway, listeners, listenerSets } = validated;
  const gwNs = gateway.metadata.namespace ?? '';
  const out: Parent[] = [{ kind: 'Gateway', namespace: gwNs, name: gateway.metadata.name,
    label: `Gateway "${refName(gwNs, gateway.metadata.name)}"`, listeners: listeners.filter((l) => !l.listenerSet) }];
  for (const s of listenerSets) {
    out.push({ kind: 'ListenerSet', namespace: s.namespace, name: s.name, label: `ListenerSet "${refName(s.namespace, s.name)}"`,
      listeners: listeners.filter((l) => l.listenerSet?.namespace === s.namespace && l.listenerSet.name === s.name),
      ...(s.allowed ? {} : { refused: `the ListenerSet is not attached (${s.message})` }) });
  }
  return out;
}

function echoParentRef(parentRef: ParentRefInput): ParentReference {
  // key order is the order status.parents[].parentRef is written in
  const out: Partial<ParentReference> = { group: parentRef.group ?? GATEWAY_GROUP, kind: parentRef.kind ?? 'Gateway' };
  if (parentRef.namespace !== undefined) out.namespace = parentRef.namespace;
  out.name = parentRef.name;
  if (parentRef.sectionName !== undefined) out.sectionName = parentRef.sectionName;
  if (parentRef.port !== undefined) out.port = parentRef.port;
  return compact(out as ParentReference);
}

/**
 * Step 1, validate: the Gateway (its class is ours and accepted, its addresses and parameters) and
 * its listeners (protocols, conflicts, certificate and CA references). Undefined when the Gateway
 * is missing or not ours.
 */
export function validateGateway(view: WorldView, gatewayRef: Pick<ObjectRef, 'namespace' | 'name'>, opts: AttachOptions): ValidatedGateway | undefined {
  const gateway = findGateway(view, gatewayRef);
  if (!gateway || !isOurGateway(view, gateway, opts.controllerName)) return undefined;
  const features = featureSet(opts.supportedFeatures);
  const gatewayClass = gatewayClassOf(view, gateway)!;
  const verdict = gatewayVerdict(view, gateway, poolEntries(opts.addressPool));
  const listenerSets = features.has('ListenerSet') ? listenerSetsOf(view, gateway) : [];
  const listeners = analyzeListeners(view, gateway, {
    features,
    unavailablePorts: new Set(opts.unavailablePorts ?? []),
    gatewayProblem: verdict.accepted ? undefined : `The Gateway is not accepted: ${verdict.message}`,
    listenerSetStatus: listenerSetStatusMode(gatewayClass),
  }, listenerSets.filter((s) => s.allowed).map((s) => s.listenerSet));
  return { gateway, gatewayClass, verdict, listeners, listenerSets, features };
}

/** Step 2, attach: parentRefs x listeners, allowedRoutes and hostnames, for every route naming the Gateway. */
export function attachRoutes(view: WorldView, validated: ValidatedGateway): RouteAttachments {
  const { gateway, listeners, features } = validated;
  const parents = parentsOf(validated);
  const naming = new Set<Route>(view.index.routesByGateway.get(key(gateway.metadata.namespace, gateway.metadata.name)) ?? []);
  for (const p of parents) if (p.kind === 'ListenerSet') for (const r of view.index.routesByListenerSet.get(key(p.namespace, p.name)) ?? []) naming.add(r);
  const routes = [...naming]
    .filter((r) => isRouteKind(r.kind) && features.has(r.kind))
    .sort((a, b) => cmp(a.kind, b.kind) || cmp(a.metadata.namespace ?? '', b.metadata.namespace ?? '') || cmp(a.metadata.name, b.metadata.name));
  const outcomes: ParentOutcome[] = [];
  const memo = outcomeMemo(view, gateway, listeners, parents);
  for (const route of routes) {
    const dropped = unsupportedRules(view.ctx, route);
    let n = 0;
    let byIndex = memo.get(route);
    if (!byIndex) memo.set(route, (byIndex = new SmallMap()));
    const parentRefs: readonly ParentRefInput[] = route.spec?.parentRefs ?? [];
    parentRefs.forEach((p, i) => {
      const parent = parents.find((x) => namesParent(route, p, x.kind, x.namespace, x.name));
      if (!parent || n >= MAX_PARENTS_PER_ROUTE) return;
      n++;
      let outcome = byIndex!.get(i);
      if (!outcome) byIndex!.set(i, (outcome = matchParentRef(view, parent, listeners, route, p, i, dropped)));
      outcomes.push(outcome);
    });
  }
  return { routes, outcomes };
}

// Whether a parentRef attaches depends on the route, on what matchParentRef reads of the listeners
// (the signature below) and, through label selectors, on the Namespaces. Outcomes are kept per
// signature and table of Namespaces, so a change to one route re-matches that route alone. The
// signatures are values, not objects, so the context keeps only its capacity's worth of them.
const OUTCOMES = memoSlot('attach.outcomes', () => new Map<string, WeakMap<object, WeakMap<Route, Map<number, ParentOutcome>>>>());

function outcomeMemo(view: WorldView, gateway: Gateway, listeners: ListenerAnalysis[], parents: Parent[]): WeakMap<Route, Map<number, ParentOutcome>> {
  const signature = JSON.stringify([gateway.metadata.namespace ?? '', gateway.metadata.name, listeners.map((l) => [
    l.index, l.name, l.port, l.protocol, l.hostname ?? null, l.supportedKinds, l.accepted.status, l.accepted.reason ?? null,
    l.listener?.allowedRoutes?.namespaces ?? null, l.listenerSet ?? null, l.isConflicted,
  ]), parents.map((p) => [p.kind, p.namespace, p.name, p.refused ?? null])]);
  const outcomes = view.ctx.memo(OUTCOMES);
  const byNamespaces = keepRecent(outcomes, signature, outcomes.get(signature) ?? new WeakMap(), view.ctx.capacity);
  const table = view.index.namespaces;
  let byRoute = byNamespaces.get(table);
  if (!byRoute) byNamespaces.set(table, (byRoute = new WeakMap()));
  return byRoute;
}

/** `listeners`: the whole merged list (outcomes name listeners by their index there). */
function matchParentRef(
  view: WorldView, parent: Parent, listeners: ListenerAnalysis[], route: Route, parentRef: ParentRefInput, index: number,
  droppedRules: Map<number, string>,
): ParentOutcome {
  const kind = route.kind as RouteKind;
  const routeNs = route.metadata.namespace ?? '';
  const gw = parent.label;
  const echoed = echoParentRef(parentRef);
  // every member in one literal (see core/model/compact)
  const outcome = (attached: ReadonlyMap<number, string[]>, counted: number[], accepted: boolean, reason: string, message: string): ParentOutcome =>
    ({ route, kind, parentRefIndex: index, parentRef: echoed, attached, counted, droppedRules, accepted, reason, message });
  const reject = (reason: string, message: string, counted: number[] = noItems()): ParentOutcome => outcome(NO_LISTENERS, counted, false, reason, message);
  if (parent.refused) return reject(RouteReason.NotAllowedByListeners, `${gw} does not admit this route: ${parent.refused}`);

  const section: string | undefined = parentRef.sectionName || undefined;
  const port: number | undefined = typeof parentRef.port === 'number' ? parentRef.port : undefined;
  const selected = parent.listeners.filter((l) => (section === undefined || l.name === section) && (port === undefined || l.port === port));
  if (!selected.length) {
    const want = [section !== undefined ? `named "${section}"` : '', port !== undefined ? `on port ${port}` : ''].filter(Boolean).join(' ');
    return reject(RouteReason.NoMatchingParent, `${gw} has no listener ${want}`);
  }

  const why: string[] = [];
  const admitting = selected.filter((l) => {
    if (!l.supportedKinds.some((k) => k.group === GATEWAY_GROUP && k.kind === kind)) {
      why.push(l.supportedKinds.length
        ? `listener "${l.name}" does not allow ${kind} (it allows ${l.supportedKinds.map((k) => k.kind).join(', ')})`
        : `listener "${l.name}" allows no route kinds (${l.accepted.status === 'False' ? l.accepted.reason : 'none it can carry'})`);
      return false;
    }
    if (!l.namespaces.admits(view, routeNs)) {
      why.push(`listener "${l.name}" does not admit routes from namespace "${routeNs}" (it admits ${l.namespaces.describe()})`);
      return false;
    }
    return true;
  });
  if (!admitting.length) return reject(RouteReason.NotAllowedByListeners, `${gw} does not admit this route: ${why.join('; ')}`);

  const hostnames = kindHasHostnames(kind) ? routeHostnames(route) : [];
  const matched = new SmallMap<number, string[]>();
  for (const l of admitting) {
    if (!kindHasHostnames(kind)) {
      matched.set(l.index, []);
      continue;
    }
    const m = matchListenerHostname(protocolHasHostname(l.protocol) ? l.hostname : undefined, hostnames);
    if (m.ok) matched.set(l.index, m.hostnames);
  }
  if (!matched.size) {
    const ls = admitting.map((l) => `"${l.name}" (${l.hostname ?? 'any'})`).join(', ');
    return reject(RouteReason.NoMatchingListenerHostname,
      `None of the route's hostnames (${hostnames.join(', ')}) matches the hostname of listener${admitting.length > 1 ? 's' : ''} ${ls}`);
  }
  const counted = sharedIndices([...matched.keys()]);
  // a listener in conflict counts the route but cannot carry it
  const attached = new SmallMap([...matched].filter(([li]) => listeners[li].isAccepted || !listeners[li].isConflicted));
  if (!attached.size) {
    const ls = counted.map((li) => `"${listeners[li].name}" (${listeners[li].accepted.reason})`).join(', ');
    return reject(RouteReason.NotAllowedByListeners,
      `${gw} does not admit this route: listener${counted.length > 1 ? 's' : ''} ${ls} ${counted.length > 1 ? 'are' : 'is'} not accepted`, counted);
  }
  const ruleCount = (route.spec?.rules ?? []).length;
  if (ruleCount > 0 && droppedRules.size === ruleCount)
    return reject(RouteReason.UnsupportedValue,
      `Every rule uses a value this implementation does not support: ${[...droppedRules].map(([i, m]) => `rule ${i}: ${m}`).join('; ')}`, counted);
  const names = [...attached.keys()].map((i) => `"${listeners[i].name}"`).join(', ');
  return outcome(attached, counted, true, RouteReason.Accepted, sameWords(`Accepted by ${gw} on listener${attached.size > 1 ? 's' : ''} ${names}`));
}

// every route a listener takes is told the same words: one string for them all
const sameWords = lastShared<string>();

// An outcome's attached entries, and a route's sort key, are kept with the (memoized) outcome and
// the route object: a recompute that changes one route makes that route's entries alone.
const ATTACHED = memoSlot('attach.attached', () => new WeakMap<ParentOutcome, Map<number, AttachedRoute>>());
const AGES = memoSlot('attach.ages', () => new WeakMap<Route, ReturnType<typeof ageAndName>>());

/** Per listener, the routes attached to it, oldest first (the order Gateway API gives to equal routes). */
export function attachmentOf(analysis: GatewayAnalysis, ctx?: TranslationContext): GatewayAttachment {
  const perListener = analysis.listeners.map(() => new Map<Route, AttachedRoute>());
  const rejected: RejectedRoute[] = [];
  const made = ctx?.memo(ATTACHED);
  for (const o of analysis.outcomes) {
    if (!o.accepted) {
      rejected.push({ kind: o.kind, route: o.route, parentRefIndex: o.parentRefIndex, reason: o.reason, message: o.message });
      continue;
    }
    let byListener = made?.get(o);
    if (made && !byListener) made.set(o, (byListener = new SmallMap()));
    for (const [li, hostnames] of o.attached) {
      const m = perListener[li];
      if (m.has(o.route)) continue;
      let ar = byListener?.get(li);
      if (!ar) {
        ar = { kind: o.kind, route: o.route, parentRefIndex: o.parentRefIndex, hostnames: [...hostnames] };
        byListener?.set(li, ar);
      }
      m.set(o.route, ar);
    }
  }
  const ages = ctx?.memo(AGES);
  const listeners: ListenerAttachment[] = analysis.listeners.map((l, i) => ({
    listener: l.listener,
    ...(l.listenerSet ? { listenerSet: { ...l.listenerSet } } : {}),
    valid: l.valid,
    routes: oldestFirst([...perListener[i].values()], ages),
  }));
  return { gateway: analysis.gateway, listeners, rejected };
}

function oldestFirst(routes: AttachedRoute[], ages?: WeakMap<Route, ReturnType<typeof ageAndName>>): AttachedRoute[] {
  const ageOf = (r: Route) => {
    const hit = ages?.get(r);
    if (hit) return hit;
    const a = ageAndName(r.metadata);
    ages?.set(r, a);
    return a;
  };
  const keyed = routes.map((ar) => ({ ar, key: ageOf(ar.route) }));
  keyed.sort((a, b) => byAgeThenName(a.key, b.key) || cmp(a.ar.kind, b.ar.kind));
  return keyed.map((k) => k.ar);
}
