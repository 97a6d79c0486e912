// The precedence ladders of Gateway API, one comparison per step. A comparison answers which of
// two candidates comes first and at which step they stopped being equal, so that the same code
// orders the compiled table and explains a decision in resolve.
import type { components } from '../../generated/api';
import { isWildcard } from '../match/hostname';

export type LadderStep = components['schemas']['ResolveDecisionStep'];

/** What breaks ties between routes: the older creationTimestamp, then "{namespace}/{name}". */
export interface RouteTieBreak {
  /** creationTimestamp in milliseconds since the epoch; +Infinity when unknown (ranks last) */
  created: number;
  /** "{namespace}/{name}" */
  routeKey: string;
  ruleIndex: number;
  matchIndex: number;
}

/**
 * The route's own hostname an entry came from, when it is known: entries of two routes whose
 * intersections with the listener's hostname are equal are ordered by it (#5124, #5126: an exact
 * route hostname beats a wildcard one, a longer wildcard a shorter). "" = the route names none.
 */
interface OwnHostname {
  ownHostname?: string;
}

export interface HTTPRank extends RouteTieBreak, OwnHostname {
  /** the entry's hostname ("" = any) */
  hostname: string;
  pathType: 'Exact' | 'PathPrefix' | 'RegularExpression';
  pathValue: string;
  method: boolean;
  headers: number;
  query: number;
}

export interface GRPCRank extends RouteTieBreak, OwnHostname {
  hostname: string;
  /** characters of the service match ("" = any service) */
  service: string;
  /** characters of the method match ("" = any method) */
  method: string;
  headers: number;
}

export interface SNIRank extends RouteTieBreak, OwnHostname {
  hostname: string;
}

export type StreamRank = RouteTieBreak;

export interface Comparison {
  /** < 0: a comes first; > 0: b comes first; 0: identical */
  order: number;
  /** the step at which they differ (ruleOrder when identical) */
  step: LadderStep;
}

type Step<T> = [LadderStep, (a: T, b: T) => number];

// Exact beats any prefix whatever its length; a regular expression (implementation-specific in the
// spec) ranks between them, as Envoy Gateway and Contour place it; within a kind, longer first.
const PATH_KIND: Record<HTTPRank['pathType'], number> = { Exact: 2, RegularExpression: 1, PathPrefix: 0 };

/** < 0 when hostname a is more specific than b (exact before wildcard, longer first). */
export const compareHostSpecificity = (a: string, b: string): number => {
  if (a === b) return 0;
  // hostnameSpecificity's two numbers, without a tuple per comparison: sorting a table compares a lot
  const al = a.length;
  const bl = b.length;
  const ae = al === 0 || isWildcard(a) ? 0 : al;
  const be = bl === 0 || isWildcard(b) ? 0 : bl;
  return be - ae || bl - al;
};
const byHostname = <T extends { hostname: string } & OwnHostname>(a: T, b: T): number =>
  compareHostSpecificity(a.hostname, b.hostname)
  || (a.ownHostname !== undefined && b.ownHostname !== undefined ? compareHostSpecificity(a.ownHostname, b.ownHostname) : 0);
const byCreation = (a: RouteTieBreak, b: RouteTieBreak): number => compareCreated(a.created, b.created);
const byName = (a: RouteTieBreak, b: RouteTieBreak): number => compareNamespacedNames(a.routeKey, b.routeKey);
const byRuleOrder = (a: RouteTieBreak, b: RouteTieBreak): number =>
  a.ruleIndex - b.ruleIndex || a.matchIndex - b.matchIndex;

const TIE_BREAKS: Step<RouteTieBreak>[] = [
  ['creationTimestamp', byCreation],
  ['name', byName],
  ['ruleOrder', byRuleOrder],
];

const HTTP_STEPS: Step<HTTPRank>[] = [
  ['hostname', byHostname],
  ['exactPath', (a, b) => PATH_KIND[b.pathType] - PATH_KIND[a.pathType]],
  ['prefixLength', (a, b) => b.pathValue.length - a.pathValue.length],
  ['method', (a, b) => Number(b.method) - Number(a.method)],
  ['headers', (a, b) => b.headers - a.headers],
  ['query', (a, b) => b.query - a.query],
  ...TIE_BREAKS,
];

const GRPC_STEPS: Step<GRPCRank>[] = [
  ['hostname', byHostname],
  ['service', (a, b) => b.service.length - a.service.length],
  ['method', (a, b) => b.method.length - a.method.length],
  ['headers', (a, b) => b.headers - a.headers],
  ...TIE_BREAKS,
];

const SNI_STEPS: Step<SNIRank>[] = [['hostname', byHostname], ...TIE_BREAKS];
const STREAM_STEPS: Step<StreamRank>[] = [...TIE_BREAKS];

function run<T>(steps: Step<T>[], a: T, b: T): Comparison {
  for (const [step, cmp] of steps) {
    const order = cmp(a, b);
    if (order !== 0) return { order, step };
  }
  return { order: 0, step: 'ruleOrder' };
}

/** The order alone, without the step: what sorting a large table needs, with nothing allocated per comparison. */
function order<T>(steps: Step<T>[], a: T, b: T): number {
  for (let i = 0; i < steps.length; i++) {
    const o = steps[i][1](a, b);
    if (o !== 0) return o;
  }
  return 0;
}

export const compareHTTP = (a: HTTPRank, b: HTTPRank): Comparison => run(HTTP_STEPS, a, b);
export const compareGRPC = (a: GRPCRank, b: GRPCRank): Comparison => run(GRPC_STEPS, a, b);
export const compareSNI = (a: SNIRank, b: SNIRank): Comparison => run(SNI_STEPS, a, b);
export const compareStream = (a: StreamRank, b: StreamRank): Comparison => run(STREAM_STEPS, a, b);
export const orderHTTP = (a: HTTPRank, b: HTTPRank): number => order(HTTP_STEPS, a, b);
export const orderGRPC = (a: GRPCRank, b: GRPCRank): number => order(GRPC_STEPS, a, b);
export const orderSNI = (a: SNIRank, b: SNIRank): number => order(SNI_STEPS, a, b);
export const orderStream = (a: StreamRank, b: StreamRank): number => order(STREAM_STEPS, a, b);

/** The name ties are broken by: "{namespace}/{name}", compared as one string. */
export function namespacedName(namespace: string, name: string): string {
  // joined, not concatenated: a concatenation is kept as the pieces and their flat copy
  return [namespace, name].join('/');
}

/**
 * The one tie-break by name: "{namespace}/{name}" compared as one string, as the spec words it.
 * Comparing the namespace first disagrees when one namespace is a prefix of another: "a-b/x"
 * sorts before "a/x" ("-" before "/"), while namespace "a" sorts before "a-b".
 */
export function compareNamespacedNames(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

function compareCreated(a: number, b: number): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

/** What orders otherwise equal routes, worked out once per route rather than once per comparison. */
export interface AgeAndName {
  created: number;
  name: string;
}

export function ageAndName(meta: { creationTimestamp?: string; namespace?: string; name: string }): AgeAndName {
  return { created: creationMillis(meta.creationTimestamp), name: namespacedName(meta.namespace ?? '', meta.name) };
}

/** Oldest first, then "{namespace}/{name}": the order Gateway API gives to otherwise equal routes. */
export function byAgeThenName(a: AgeAndName, b: AgeAndName): number {
  return compareCreated(a.created, b.created) || compareNamespacedNames(a.name, b.name);
}

/** creationTimestamp at millisecond precision; unknown or unparsable ranks last. */
export function creationMillis(ts: string | undefined): number {
  if (!ts) return Number.POSITIVE_INFINITY;
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY;
}
