// resolve(table, request): where a request goes and why, evaluated on a compiled table exactly as a
// proxy would route it. Pure and synchronous; a Node proxy can import it as its matcher.
import type { CompiledListener, CompiledTable, CompiledUnattachedRoute } from '../compile/types';
import { stepFigure } from '../precedence/ranks';
import { runActions, type ActionResult } from './actions';
import { defaultPort, describeListener, LISTENER_PROTOCOLS, selectListener } from './listeners';
import { normalizeRequest, type NormalizedRequest } from './request';
import { bestPerRule, candidatesOn, compareCandidates, figuresOf, type Candidate, type EntryKind } from './routes';
import type { ResolveCandidate, ResolveDecisionStep, ResolveRequest, ResolveResponse } from './types';
import { unattachedFor } from './unattached';
import { grpcCallsTakenBy } from './grpc-calls';
import { hostnameMatches } from '../match/hostname';
import { routeRef, routeWords, ruleWords, type Visibility } from './words';

export interface ResolveContext {
  /** May the caller read objects in this namespace? Routes elsewhere are named "a route in another namespace". Default: yes. */
  canRead?: (namespace: string) => boolean;
  /** A number in [0, 1) that picks one backend by weight, as a proxy's random draw would. */
  random?: number;
  /** Unattached routes, when the table was compiled without them (default: the table's own). */
  unattached?: readonly CompiledUnattachedRoute[];
  /** How many losing candidates the explanation names one by one (default 5). */
  maxExplainedCandidates?: number;
  /** Seconds since the epoch, for session timeouts (a proxy's clock); absent = timeouts are not checked. */
  nowSeconds?: number;
}

interface Ctx {
  table: CompiledTable;
  req: NormalizedRequest;
  port: number | undefined;
  v: Visibility;
  context: ResolveContext;
  explanation: string[];
}

function base(ctx: Ctx, over: Partial<ResolveResponse> = {}): ResolveResponse {
  return {
    matched: false,
    forwarded: false,
    listener: null,
    route: null,
    ruleIndex: null,
    decidedBy: null,
    backends: [],
    ...over,
    explanation: ctx.explanation,
  };
}

const KEY_ORDER: (keyof ResolveResponse)[] = [
  'matched', 'forwarded', 'connectionRejected', 'statusCode', 'grpcStatus', 'listener', 'route', 'ruleIndex', 'ruleName',
  'matchIndex', 'decidedBy', 'externalAuth', 'backends', 'chosenBackend', 'session', 'rejectedShare', 'redirect', 'rewrite', 'requestHeaders',
  'responseHeaders', 'mirrors', 'timeouts', 'candidates', 'unattached', 'explanation',
];

/** Where the request goes and why; the answer's fields always come in the same order. */
export function resolve(table: CompiledTable, request: ResolveRequest, context: ResolveContext = {}): ResolveResponse {
  const res = evaluate(table, request, context);
  const out: Record<string, unknown> = {};
  for (const k of KEY_ORDER) if (res[k] !== undefined) out[k] = res[k];
  return out as unknown as ResolveResponse;
}

/** What a proxy does with a request: resolve's answer, and for a forwarded one how its answer's headers are finished. */
export type Decision = ResolveResponse & Pick<ActionResult, 'respond' | 'target' | 'mirrorTargets' | 'retry' | 'sessionValue' | 'sessionPersistence' | 'externalAuthConfig'>;

/** The proxy's own decision: the same evaluation as resolve, the answer's fields as evaluated. */
export function decide(table: CompiledTable, request: ResolveRequest, context: ResolveContext = {}): Decision {
  return evaluate(table, request, context);
}

function evaluate(table: CompiledTable, request: ResolveRequest, context: ResolveContext): Decision {
  const req = normalizeRequest(request ?? {}, table);
  const family = Object.hasOwn(LISTENER_PROTOCOLS, req.protocol) ? LISTENER_PROTOCOLS[req.protocol] : undefined;
  const port = req.port ?? (family ? defaultPort(table, req.protocol) : undefined);
  const ctx: Ctx = { table, req, port, v: { canRead: context.canRead ?? (() => true) }, context, explanation: [] };
  if (!family) {
    ctx.explanation.push(`Protocol ${JSON.stringify(request?.protocol)} is not one of HTTP, HTTPS, GRPC, TLS, TCP, UDP.`);
    return base(ctx, { connectionRejected: true });
  }
  const onPort = table.listeners.filter((l) => l.port === port);
  const usable = onPort.filter((l) => l.valid && family.includes(l.protocol));

  if (usable.length === 0) {
    const broken = onPort.filter((l) => !l.valid && family.includes(l.protocol));
    if (port === undefined) ctx.explanation.push(`The Gateway has no listener for ${req.protocol.toUpperCase()}: the connection is refused.`);
    else if (broken.length) ctx.explanation.push(`${cap(broken.map(describeListener).join(' and '))} cannot carry traffic (not valid): connections to port ${port} are refused.`);
    else if (onPort.length) ctx.explanation.push(`Port ${port} has no listener for ${req.protocol.toUpperCase()} (only ${[...new Set(onPort.map((l) => l.protocol))].join(', ')}): the connection is refused.`);
    else ctx.explanation.push(`The Gateway has no listener on port ${port}: the connection is refused.`);
    return base(ctx, { connectionRejected: true });
  }

  const tlsFamily = req.protocol === 'https' || req.protocol === 'tls' || (req.protocol === 'grpc' && usable.some((l) => l.protocol === 'HTTPS'));
  if (tlsFamily) return resolveTLSFamily(ctx, usable);
  if (req.protocol === 'tcp' || req.protocol === 'udp') {
    const listener = usable[0];
    ctx.explanation.push(`${cap(describeListener(listener))} takes the ${req.protocol === 'udp' ? 'UDP datagrams' : 'TCP connection'}.`);
    return routeOn(ctx, listener, req.protocol, []);
  }
  const http = usable.filter((l) => l.protocol === 'HTTP');
  const listener = selectListener(http, req.host);
  if (!listener) {
    ctx.explanation.push(`No listener on port ${port} accepts host ${req.host || '(none)'}: ${http.map(describeListener).join(', ')}. The gateway answers 404.`);
    return base(ctx, { statusCode: 404, ...(req.protocol === 'grpc' ? { grpcStatus: 'Unimplemented' as const } : {}) });
  }
  explainListenerChoice(ctx, listener, http, req.host, 'host');
  return routeOn(ctx, listener, httpKind(ctx, listener), http.filter((l) => l !== listener));
}

function resolveTLSFamily(ctx: Ctx, usable: CompiledListener[]): ResolveResponse {
  const { req } = ctx;
  const tlsListeners = usable.filter((l) => l.protocol === 'HTTPS' || l.protocol === 'TLS');
  const bySni = selectListener(tlsListeners, req.sni);
  if (!bySni) {
    ctx.explanation.push(`No listener on port ${ctx.port} accepts the TLS server name ${req.sni || '(none)'}: the TLS handshake fails.`);
    return base(ctx, { connectionRejected: true });
  }
  explainListenerChoice(ctx, bySni, tlsListeners, req.sni, 'SNI');
  if (bySni.protocol === 'TLS') {
    const mode = bySni.tls?.mode ?? 'Terminate';
    ctx.explanation.push(mode === 'Passthrough'
      ? 'The listener passes the TLS connection through to the backend, which terminates it.'
      : 'The listener terminates TLS and forwards the plaintext stream to the backend.');
    // a terminating listener's TCPRoutes take the decrypted stream when no TLSRoute takes the name
    if (mode === 'Terminate' && bySni.tcpRoutes?.length && candidatesOn(ctx.table, bySni, 'tls', req).length === 0) {
      ctx.explanation.push('No TLSRoute of the listener takes the server name; its TCPRoute takes the decrypted stream.');
      return routeOn(ctx, bySni, 'tcp', []);
    }
    return routeOn(ctx, bySni, 'tls', tlsListeners.filter((l) => l !== bySni && l.protocol === 'TLS'));
  }
  if (req.protocol === 'tls') {
    ctx.explanation.push(`${cap(describeListener(bySni))} terminates TLS and routes HTTP requests; a TLS connection is not routed by SNI alone.`);
    return base(ctx, { listener: bySni.name });
  }
  const https = tlsListeners.filter((l) => l.protocol === 'HTTPS');
  const hostName = req.host || req.sni;
  const byHost = selectListener(https, hostName);
  if (byHost !== bySni) {
    ctx.explanation.push(byHost
      ? `Host ${hostName} selects ${describeListener(byHost)}, another listener than the TLS server name did: the gateway answers 421 Misdirected Request.`
      : `Host ${hostName} is not served by ${describeListener(bySni)}, the listener the TLS server name selected: the gateway answers 421 Misdirected Request.`);
    return base(ctx, { listener: bySni.name, statusCode: 421 });
  }
  return routeOn(ctx, bySni, httpKind(ctx, bySni), https.filter((l) => l !== bySni));
}

/**
 * The entries an HTTP-family request is matched against on `listener`: a gRPC call goes by the
 * GRPCRoutes, or by the HTTPRoutes where they take the host's gRPC calls (core/resolve/grpc-calls).
 */
function httpKind(ctx: Ctx, listener: CompiledListener): 'http' | 'grpc' {
  if (ctx.req.protocol !== 'grpc') return 'http';
  const host = ctx.req.host;
  const taker = grpcCallsTakenBy(ctx.table, listener, (h) => hostnameMatches(h, host));
  if (taker.kind === 'GRPCRoute') {
    if (taker.contested) ctx.explanation.push(`${cap(routeWords(taker.contested.winner, ctx.v))} and ${routeWords(taker.contested.loser, ctx.v)} both claim host ${host || '(none)'}: gRPC calls go by the GRPCRoutes, other requests by the HTTPRoutes.`);
    return 'grpc';
  }
  ctx.explanation.push(`No GRPCRoute on the listener claims host ${host || '(none)'}: the gRPC call is routed by the HTTPRoutes, as a POST to ${ctx.req.path}.`);
  return 'http';
}

function explainListenerChoice(ctx: Ctx, chosen: CompiledListener, among: CompiledListener[], name: string, by: 'host' | 'SNI'): void {
  if (among.length === 1) {
    ctx.explanation.push(`${cap(describeListener(chosen))} takes the request: it is the only one on port ${chosen.port}.`);
    return;
  }
  const why = chosen.hostname
    ? `its hostname ${chosen.hostname} is the most specific match for ${by} ${name}`
    : `no listener with a hostname matches ${by} ${name || '(none)'}`;
  ctx.explanation.push(`${cap(describeListener(chosen))} takes the request: ${why} (listener isolation: only its routes are considered).`);
}

function routeOn(ctx: Ctx, listener: CompiledListener, kind: EntryKind, otherListeners: CompiledListener[]): ResolveResponse {
  const { table, req, v } = ctx;
  const all = bestPerRule(candidatesOn(table, listener, kind, req));
  const winner = all[0];
  // a rule already competing on this listener is not named again for another listener
  const here = new Set(all.map((c) => c.rule));
  const elsewhere = bestPerRule(otherListeners.flatMap((l) => candidatesOn(table, l, kind, req))).filter((c) => !here.has(c.rule));
  const unattached = unattachedFor(ctx.context.unattached ?? table.unattached ?? [], table, listener, kind, req, ctx.port, winner, v);
  const limit = ctx.context.maxExplainedCandidates ?? 5;
  const isStream = kind === 'tls' || kind === 'tcp' || kind === 'udp';

  const elsewhereWords = () => {
    for (const c of elsewhere.slice(0, limit)) {
      ctx.explanation.push(`${cap(ruleWords(c.route, c.rule.index, c.rule.name, v))} on listener "${c.listener.name}" would also match (${figuresOf(c)}), but that listener did not take the request.`);
    }
  };

  if (!winner) {
    const grpcCall = req.protocol === 'grpc' && (kind === 'grpc' || kind === 'http');
    const what = grpcCall ? `gRPC method ${req.path}` : kind === 'tls' ? `server name ${req.sni}` : kind === 'http' ? `${req.method} ${req.path}` : 'the connection';
    if (isStream) ctx.explanation.push(`No route on ${describeListener(listener)} accepts ${what}: the connection is refused.`);
    else ctx.explanation.push(`No rule on listener "${listener.name}" matches ${what}${req.host ? ` for host ${req.host}` : ''}: the gateway answers 404${grpcCall ? ' (gRPC status Unimplemented)' : ''}.`);
    elsewhereWords();
    ctx.explanation.push(...unattached.words);
    return base(ctx, {
      listener: listener.name,
      ...(isStream ? { connectionRejected: true } : { statusCode: 404 }),
      ...(grpcCall ? { grpcStatus: 'Unimplemented' as const } : {}),
      ...(elsewhere.length ? { candidates: elsewhere.map((c) => candidate(c, 'listener', v)) } : {}),
      ...(unattached.items.length ? { unattached: unattached.items } : {}),
    });
  }

  const runnerUp = all[1];
  let decidedBy: ResolveDecisionStep = 'onlyCandidate';
  const winWords = ruleWords(winner.route, winner.rule.index, winner.rule.name, v);
  ctx.explanation.push(`${cap(winWords)} matches${figuresOf(winner) ? ` with ${figuresOf(winner)}` : ''}${winner.hostname ? ` (hostname ${winner.hostname})` : ''}.`);
  if (runnerUp) {
    const cmp = compareCandidates(winner, runnerUp);
    decidedBy = cmp.step;
    ctx.explanation.push(`It wins over ${ruleWords(runnerUp.route, runnerUp.rule.index, runnerUp.rule.name, v)} (${figuresOf(runnerUp)}) at "${cmp.step}": ${stepFigure(cmp.step, winner.rank)} against ${stepFigure(cmp.step, runnerUp.rank)}.`);
  } else if (elsewhere.length) {
    decidedBy = 'listener';
    ctx.explanation.push(`It wins because listener isolation keeps the routes of other listeners out.`);
  } else {
    ctx.explanation.push('No other attached rule matches.');
  }
  for (const c of all.slice(2, 2 + limit)) {
    const cmp = compareCandidates(winner, c);
    ctx.explanation.push(`${cap(ruleWords(c.route, c.rule.index, c.rule.name, v))} also matches (${figuresOf(c)}) and loses at "${cmp.step}".`);
  }
  if (all.length > 2 + limit) ctx.explanation.push(`${all.length - 2 - limit} more matching rules lose as well.`);
  elsewhereWords();
  ctx.explanation.push(...unattached.words);

  const candidates: ResolveCandidate[] = [
    ...all.slice(1).map((c) => candidate(c, compareCandidates(winner, c).step, v)),
    ...elsewhere.map((c) => candidate(c, 'listener', v)),
  ];
  const actions = runActions({
    rule: winner.rule,
    matchedPrefix: winner.prefix,
    listener,
    request: req,
    visibility: v,
    random: ctx.context.random,
    ...(ctx.context.nowSeconds !== undefined ? { nowSeconds: ctx.context.nowSeconds } : {}),
    refusal: kind === 'udp' ? 'datagrams' : isStream ? 'connection' : req.protocol === 'grpc' ? 'grpc' : 'http',
  });
  const { explanation: notes, ...result } = actions;
  ctx.explanation.push(...notes);

  const out: ResolveResponse = base(ctx, {
    matched: true,
    ...result,
    listener: listener.name,
    route: routeRef(winner.route, v),
    ruleIndex: winner.rule.index,
    ...(winner.rule.name && v.canRead(winner.route.namespace) ? { ruleName: winner.rule.name } : {}),
    ...(kind === 'http' || kind === 'grpc' ? { matchIndex: winner.matchIndex } : {}),
    decidedBy,
    ...(candidates.length ? { candidates } : {}),
    ...(unattached.items.length ? { unattached: unattached.items } : {}),
  });
  if (isStream) {
    delete out.requestHeaders;
    delete out.responseHeaders;
    if (!out.forwarded) {
      delete out.statusCode;
      out.connectionRejected = true;
    }
  }
  return out;
}

function candidate(c: Candidate, lostAt: ResolveDecisionStep, v: Visibility): ResolveCandidate {
  return {
    route: routeRef(c.route, v),
    listener: c.listener.name,
    ruleIndex: c.rule.index,
    matchIndex: c.matchIndex,
    lostAt,
  };
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
