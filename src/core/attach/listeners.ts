// Listener validation, the first step of a Gateway's translation: protocol and TLS mode support,
// allowed route kinds, conflicts between listeners sharing a port, certificate and CA references,
// and whether the listener can be programmed. The verdicts become the listener conditions; the
// attachment step only lets routes attach to the kinds a listener supports.
//
// The listeners of the ListenerSets a Gateway allows are merged after its own, in the spec's order
// (the Gateway's listeners, then ListenerSets oldest first, then by namespace/name): among the
// Gateway's own listeners every one of a conflicting group is Conflicted, as before ListenerSets; a
// ListenerSet listener that conflicts with one kept before it in the merged list is Conflicted alone,
// so that a ListenerSet can never take a port or hostname from the Gateway or an older ListenerSet.
import type { Gateway, Listener, ListenerSet, RouteGroupKind } from '../model/objects';
import type { ListenerOwner } from '../model/world';
import { draft, type ConditionDraft } from '../status/conditions';
import { ConditionType, ListenerReason } from '../status/reasons';
import type { ListenerSetStatusMode } from '../status/listener-set-mode';
import { resolveListenerCertificates, type SecretRefResult } from '../refs/certificates';
import { resolveFrontendValidation, type FrontendValidation } from '../refs/ca';
import { GATEWAY_GROUP, type WorldView } from '../refs/lookup';
import { protocolKinds, SUPPORTED_PROTOCOLS } from './kinds';
import { namespacePolicy, type NamespacePolicy } from './namespaces';
import { hostnamesOverlap } from './hostnames';

export interface ListenerContext {
  features: ReadonlySet<string>;
  unavailablePorts: ReadonlySet<number>;
  /** why the Gateway itself cannot be programmed (class not accepted, invalid parameters...), if so */
  gatewayProblem?: string;
  /** the reasons a ListenerSet listener in conflict carries (status/listener-set-mode.ts); default released */
  listenerSetStatus?: ListenerSetStatusMode;
}

export interface ListenerAnalysis {
  /** the index in the merged list (the Gateway's listeners, then its ListenerSets') */
  index: number;
  listener: Listener;
  /** absent for the Gateway's own listeners */
  listenerSet?: ListenerOwner;
  name: string;
  port: number;
  protocol: string;
  /** for TLS-carrying listeners: Terminate or Passthrough */
  tlsMode?: string;
  /** lower-cased; undefined for none or for protocols without hostnames */
  hostname?: string;
  supportedKinds: RouteGroupKind[];
  namespaces: NamespacePolicy;
  accepted: ConditionDraft;
  conflicted: ConditionDraft;
  resolvedRefs: ConditionDraft;
  programmed: ConditionDraft;
  overlappingTLS?: ConditionDraft;
  certificates: SecretRefResult[];
  frontendValidation?: FrontendValidation;
  /** the listener can carry traffic (Programmed=True) */
  valid: boolean;
  isAccepted: boolean;
  isConflicted: boolean;
}

interface Work {
  a: ListenerAnalysis;
  /** the Gateway or the ListenerSet that declares the listener, and its index there */
  owner: Gateway | ListenerSet;
  ownerIndex: number;
  notAccepted?: { reason: string; message: string };
  conflict?: { reason: string; message: string; unsupportedMix?: boolean };
  invalidKinds: string[];
  /** the protocol's kinds, before conflicts empty supportedKinds */
  kinds: RouteGroupKind[];
}

/** `listenerSets`: the ListenerSets the Gateway allows, in precedence order. */
export function analyzeListeners(view: WorldView, gateway: Gateway, ctx: ListenerContext, listenerSets: readonly ListenerSet[] = []): ListenerAnalysis[] {
  const entries: { owner: Gateway | ListenerSet; listener: Listener; ownerIndex: number }[] = [
    ...(gateway.spec?.listeners ?? []).map((listener, ownerIndex) => ({ owner: gateway, listener, ownerIndex })),
    ...listenerSets.flatMap((ls) => (ls.spec?.listeners ?? []).map((listener, ownerIndex) => ({ owner: ls, listener, ownerIndex }))),
  ];
  const work: Work[] = entries.map((e, i) => validateOne(e.owner, e.listener, i, e.ownerIndex, ctx));
  const own = work.filter((w) => !w.a.listenerSet);
  detectConflicts(own, ctx);
  detectLaterConflicts(work, ctx);
  for (const w of work) resolveRefsAndProgram(view, gateway, w, ctx);
  detectOverlappingTLS(work);
  return work.map((w) => w.a);
}

function label(w: Work): string {
  return `"${w.a.name}"`;
}

function validateOne(owner: Gateway | ListenerSet, listener: Listener, index: number, ownerIndex: number, ctx: ListenerContext): Work {
  const protocol: string = listener?.protocol ?? '';
  const port = listener?.port;
  const name = listener?.name ?? `#${ownerIndex}`;
  const a: ListenerAnalysis = {
    index, listener, name, port, protocol,
    ...(owner.kind === 'ListenerSet' ? { listenerSet: { namespace: owner.metadata.namespace ?? '', name: owner.metadata.name } } : {}),
    supportedKinds: [], namespaces: namespacePolicy(owner, listener),
    accepted: draft(ConditionType.Accepted, true, ListenerReason.Accepted, 'The listener is valid'),
    conflicted: draft(ConditionType.Conflicted, false, ListenerReason.NoConflicts, 'The listener does not conflict with other listeners'),
    resolvedRefs: draft(ConditionType.ResolvedRefs, true, ListenerReason.ResolvedRefs, 'All references are resolved'),
    programmed: draft(ConditionType.Programmed, true, ListenerReason.Programmed, 'The listener is programmed'),
    certificates: [], valid: false, isAccepted: true, isConflicted: false,
  };
  const w: Work = { a, owner, ownerIndex, invalidKinds: [], kinds: [] };
  if (protocol === 'HTTP' || protocol === 'HTTPS' || protocol === 'TLS') {
    if (typeof listener?.hostname === 'string' && listener.hostname !== '') a.hostname = listener.hostname.toLowerCase();
  }

  const kinds = protocolKinds(protocol, ctx.features, listener?.tls?.mode);
  if (!(SUPPORTED_PROTOCOLS as readonly string[]).includes(protocol) || kinds.length === 0) {
    w.notAccepted = {
      reason: ListenerReason.UnsupportedProtocol,
      message: `Protocol "${protocol}" is not supported; listeners may use ${SUPPORTED_PROTOCOLS.filter((p) => protocolKinds(p, ctx.features).length).join(', ')}`,
    };
    return w;
  }
  if (protocol === 'HTTPS' || protocol === 'TLS') {
    const mode: string = listener?.tls?.mode ?? 'Terminate';
    a.tlsMode = mode;
    if (mode !== 'Terminate' && mode !== 'Passthrough') {
      w.notAccepted = { reason: ListenerReason.UnsupportedValue, message: `TLS mode "${mode}" is not supported; use Terminate or Passthrough` };
      return w;
    }
    if (protocol === 'HTTPS' && mode === 'Passthrough') {
      w.notAccepted = { reason: ListenerReason.UnsupportedValue, message: 'HTTPS listeners terminate TLS; tls.mode Passthrough is only valid for protocol TLS' };
      return w;
    }
    if (protocol === 'TLS' && mode === 'Terminate' && !ctx.features.has('TLSRouteModeTerminate')) {
      w.notAccepted = { reason: ListenerReason.UnsupportedValue, message: 'TLS listeners in mode Terminate are not supported (TLSRouteModeTerminate is not claimed)' };
      return w;
    }
  }
  if (ctx.unavailablePorts.has(port)) {
    w.notAccepted = { reason: ListenerReason.PortUnavailable, message: `Port ${port} is not available to this Gateway's proxies` };
    return w;
  }

  const wanted = listener?.allowedRoutes?.kinds ?? [];
  const supported: RouteGroupKind[] = [];
  const add = (k: RouteGroupKind) => {
    if (!supported.some((s) => s.group === k.group && s.kind === k.kind)) supported.push(k);
  };
  if (wanted.length === 0) for (const k of kinds) add({ group: GATEWAY_GROUP, kind: k });
  for (const k of wanted) {
    const group = k?.group ?? GATEWAY_GROUP;
    const kind = k?.kind ?? '';
    const known = kinds.find((x) => x === kind);
    if (group === GATEWAY_GROUP && known) add({ group, kind: known });
    else w.invalidKinds.push(group === GATEWAY_GROUP ? kind : `${kind} (group ${group})`);
  }
  w.kinds = supported;
  return w;
}

const protocolClass = (p: string): string => (p === 'HTTP' ? 'HTTP' : p === 'HTTPS' || p === 'TLS' ? 'HTTPS/TLS' : p);

/**
 * An HTTPS and a TLS listener on one port may share it by server name only when their hostnames
 * cannot both take a name; when they can ("" takes every name, a wildcard the names under it) the
 * two conflict (ProtocolConflict), as upstream's #5147 tests read "Distinct Listeners": a
 * connection's SNI alone would have to choose between terminating HTTP and passing TLS through.
 */
function mixedOverlap(a: ListenerAnalysis, b: ListenerAnalysis): boolean {
  if (a.protocol === b.protocol || !(a.protocol === 'HTTPS' || a.protocol === 'TLS') || !(b.protocol === 'HTTPS' || b.protocol === 'TLS')) return false;
  return hostnamesOverlap(a.hostname, b.hostname);
}

/** Listeners that share a port must be distinct (Gateway API "Distinct Listeners"). */
function detectConflicts(work: Work[], ctx: ListenerContext): void {
  const byPort = new Map<number, Work[]>();
  for (const w of work) {
    if (w.notAccepted) continue;
    (byPort.get(w.a.port) ?? byPort.set(w.a.port, []).get(w.a.port)!).push(w);
  }
  const klass = protocolClass;
  const names = (ws: Work[]) => ws.map(label).join(', ');
  for (const [port, group] of byPort) {
    // UDP and the TCP-based protocols use different transports: they never conflict with each other
    const udp = group.filter((w) => w.a.protocol === 'UDP');
    const tcp = group.filter((w) => w.a.protocol !== 'UDP');
    if (udp.length > 1)
      for (const w of udp) w.conflict = { reason: ListenerReason.ProtocolConflict,
        message: `Listeners ${names(udp)} all use UDP port ${port}; UDP listeners cannot share a port` };
    const classes = new Set(tcp.map((w) => klass(w.a.protocol)));
    if (classes.size > 1) {
      const desc = tcp.map((w) => `${label(w)} (${w.a.protocol})`).join(', ');
      for (const w of tcp) w.conflict = { reason: ListenerReason.ProtocolConflict,
        message: `Listeners ${desc} use port ${port} with protocols that cannot share a port` };
      continue;
    }
    if (classes.has('TCP')) {
      if (tcp.length > 1)
        for (const w of tcp) w.conflict = { reason: ListenerReason.ProtocolConflict,
          message: `Listeners ${names(tcp)} all use TCP port ${port}; TCP listeners cannot share a port` };
      continue;
    }
    const mixed = tcp.filter((w) => tcp.some((o) => o !== w && mixedOverlap(w.a, o.a)));
    if (mixed.length) {
      const desc = mixed.map((w) => `${label(w)} (${w.a.protocol}, ${w.a.hostname ?? 'any hostname'})`).join(', ');
      for (const w of mixed) w.conflict = { reason: ListenerReason.ProtocolConflict,
        message: `Listeners ${desc} use port ${port} with HTTPS and TLS for overlapping hostnames, which cannot share a port` };
    }
    const byHost = new Map<string, Work[]>();
    for (const w of tcp.filter((x) => !x.conflict)) {
      const h = w.a.hostname ?? '';
      (byHost.get(h) ?? byHost.set(h, []).get(h)!).push(w);
    }
    for (const [h, same] of byHost) {
      if (same.length < 2) continue;
      for (const w of same) w.conflict = { reason: ListenerReason.HostnameConflict,
        message: `Listeners ${names(same)} use port ${port} with the same hostname (${h || 'none'})` };
    }
    if (!ctx.features.has('TLSRouteModeMixed')) {
      const tls = tcp.filter((w) => w.a.protocol === 'TLS' && !w.conflict);
      if (new Set(tls.map((w) => w.a.tlsMode)).size > 1)
        for (const w of tls) w.conflict = { reason: ListenerReason.ProtocolConflict,
          message: `TLS listeners ${tls.map((x) => `${label(x)} (${x.a.tlsMode})`).join(', ')} use port ${port} with different TLS modes, which this GatewayClass does not support (TLSRouteModeMixed)`,
          unsupportedMix: true };
    }
  }
}

/** Why two listeners cannot both be served (Gateway API "Distinct Listeners"), or undefined. */
function pairConflict(a: ListenerAnalysis, b: ListenerAnalysis, ctx: ListenerContext): string | undefined {
  if (a.port !== b.port) return undefined;
  const udp = (p: string) => p === 'UDP';
  if (udp(a.protocol) || udp(b.protocol)) return udp(a.protocol) && udp(b.protocol) ? ListenerReason.ProtocolConflict : undefined;
  const klass = protocolClass;
  if (klass(a.protocol) !== klass(b.protocol) || klass(a.protocol) === 'TCP') return ListenerReason.ProtocolConflict;
  if (mixedOverlap(a, b)) return ListenerReason.ProtocolConflict;
  if ((a.hostname ?? '') === (b.hostname ?? '')) return ListenerReason.HostnameConflict;
  if (a.protocol === 'TLS' && b.protocol === 'TLS' && a.tlsMode !== b.tlsMode && !ctx.features.has('TLSRouteModeMixed'))
    return ListenerReason.ProtocolConflict;
  return undefined;
}

function ownerLabel(a: ListenerAnalysis): string {
  return a.listenerSet ? `of ListenerSet "${a.listenerSet.namespace}/${a.listenerSet.name}"` : 'of the Gateway';
}

/** A ListenerSet listener against every listener before it in the merged list. */
function detectLaterConflicts(work: Work[], ctx: ListenerContext): void {
  work.forEach((w, i) => {
    if (!w.a.listenerSet || w.notAccepted) return;
    for (const earlier of work.slice(0, i)) {
      // only a listener that is kept takes its port: one conflicted itself takes nothing
      if (earlier.notAccepted || earlier.conflict) continue;
      const reason = pairConflict(earlier.a, w.a, ctx);
      if (!reason) continue;
      const what = reason === ListenerReason.HostnameConflict ? `the same hostname (${w.a.hostname ?? 'none'})` : `a protocol that cannot share it (${earlier.a.protocol} and ${w.a.protocol})`;
      w.conflict = { reason, message: `Port ${w.a.port} with ${what} is taken by listener ${label(earlier)} ${ownerLabel(earlier.a)}, which comes first` };
      return;
    }
  });
}

function resolveRefsAndProgram(view: WorldView, gateway: Gateway, w: Work, ctx: ListenerContext): void {
  const a = w.a;
  const pr4815 = ctx.listenerSetStatus === 'pr4815';
  const terminates = a.protocol === 'HTTPS' || (a.protocol === 'TLS' && a.tlsMode === 'Terminate');
  const refProblems: { reason: string; message: string }[] = [];
  let tlsMissing: string | undefined;
  let noUsableCertificate = false;
  if (terminates && !w.notAccepted) {
    const tls = a.listener?.tls;
    if (!tls) tlsMissing = `The ${a.protocol} listener has no tls configuration; it needs a certificate to terminate TLS`;
    else if (!(tls.certificateRefs ?? []).length) tlsMissing = 'tls.certificateRefs is empty; this implementation needs a certificate to terminate TLS';
    else {
      a.certificates = resolveListenerCertificates(view, w.owner, a.listener, w.ownerIndex);
      for (const c of a.certificates) if (!c.ok)
        refProblems.push({ reason: c.problem === 'notPermitted' ? ListenerReason.RefNotPermitted : ListenerReason.InvalidCertificateRef, message: c.message });
      noUsableCertificate = !a.certificates.some((c) => c.ok);
    }
  }
  let noValidCA: string | undefined;
  if (!w.notAccepted) {
    const fv = resolveFrontendValidation(view, gateway, a.listener);
    if (fv && fv.refs.length) {
      a.frontendValidation = fv;
      for (const r of fv.refs) if (!r.ok) refProblems.push({ reason: r.reason!, message: r.message });
      if (!fv.refs.some((r) => r.ok)) noValidCA = `None of the CA certificates of ${fv.source} can be used`;
    }
  }
  if (w.invalidKinds.length)
    refProblems.push({ reason: ListenerReason.InvalidRouteKinds,
      message: `${w.invalidKinds.length > 1 ? 'Route kinds' : 'Route kind'} ${w.invalidKinds.map((k) => `"${k}"`).join(', ')} ${w.invalidKinds.length > 1 ? 'are' : 'is'} not supported on ${a.protocol} listeners${w.kinds.length ? `; this one carries ${w.kinds.map((k) => k.kind).join(', ')}` : ''}` });
  if (refProblems.length)
    a.resolvedRefs = draft(ConditionType.ResolvedRefs, false, refProblems[0].reason, refProblems.map((p) => p.message).join('; '));

  if (!w.notAccepted && noValidCA) w.notAccepted = { reason: ListenerReason.NoValidCACertificate, message: noValidCA };
  if (w.notAccepted) {
    a.isAccepted = false;
    a.accepted = draft(ConditionType.Accepted, false, w.notAccepted.reason, w.notAccepted.message);
  } else if (w.conflict) {
    a.isAccepted = false;
    a.isConflicted = true;
    // the conflict's own reason goes on Conflicted; Accepted says the listener is not valid (#5147
    // expects Invalid there for a Gateway's listeners). A ListenerSet listener keeps the conflict's
    // reason on Accepted (upstream's released ListenerSet tests), or says Conflicted on a class that
    // opts into #4815; a mix of TLS modes this class cannot serve keeps the conflict's reason too.
    const acceptedReason = a.listenerSet && pr4815 ? ListenerReason.Conflicted
      : a.listenerSet || w.conflict.unsupportedMix ? w.conflict.reason : ListenerReason.Invalid;
    a.accepted = draft(ConditionType.Accepted, false, acceptedReason, w.conflict.message);
    a.conflicted = draft(ConditionType.Conflicted, true, w.conflict.reason, w.conflict.message);
  }
  // a listener in conflict keeps the kinds its configuration supports (the spec empties them only for
  // kinds that are not supported); TLS modes mixed on a port are a configuration this class does not
  // support at all, so those listeners support no kind (as upstream's test for it expects)
  a.supportedKinds = a.isAccepted || w.notAccepted?.reason === ListenerReason.NoValidCACertificate
    || (w.conflict && !w.conflict.unsupportedMix) ? w.kinds : [];

  const notProgrammed = (reason: string, message: string) => {
    a.programmed = draft(ConditionType.Programmed, false, reason, message);
  };
  // a ListenerSet listener names its conflict in Programmed too (as upstream's released ListenerSet
  // tests expect); #4815 lists Invalid and PortUnavailable as the reasons of a listener not programmed
  if (!a.isAccepted && a.listenerSet && w.conflict && !pr4815) notProgrammed(w.conflict.reason, `The listener is not accepted: ${a.accepted.message}`);
  else if (!a.isAccepted) notProgrammed(ListenerReason.Invalid, `The listener is not accepted: ${a.accepted.message}`);
  else if (ctx.gatewayProblem) notProgrammed(ListenerReason.Invalid, ctx.gatewayProblem);
  else if (tlsMissing) notProgrammed(ListenerReason.InvalidTLSConfig, tlsMissing);
  else if (noUsableCertificate) notProgrammed(ListenerReason.Invalid, 'None of the listener\'s certificateRefs can be used');
  else if (a.supportedKinds.length === 0) notProgrammed(ListenerReason.Invalid, 'The listener allows no route kind it can carry');
  else if (a.namespaces.error) notProgrammed(ListenerReason.Invalid, `allowedRoutes.namespaces.selector is unusable: ${a.namespaces.error}`);
  a.valid = a.programmed.status === 'True';
}

/** HTTPS listeners on one port whose hostnames overlap (connection coalescing can cross them). */
function detectOverlappingTLS(work: Work[]): void {
  const https = work.filter((w) => w.a.protocol === 'HTTPS' && w.a.isAccepted);
  for (const w of https) {
    const others = https.filter((o) => o !== w && o.a.port === w.a.port && hostnamesOverlap(w.a.hostname, o.a.hostname));
    if (!others.length) continue;
    w.a.overlappingTLS = draft(ConditionType.OverlappingTLSConfig, true, ListenerReason.OverlappingHostnames,
      `The hostname ${w.a.hostname ?? '(any)'} overlaps with ${others.map((o) => `${o.a.hostname ?? '(any)'} of listener ${label(o)}`).join(', ')} on port ${w.a.port}`);
  }
}
