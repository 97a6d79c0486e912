// The inputs and outputs of the translator. These are the seams between the core's steps:
// attach (src/core/attach) -> refs (src/core/refs) -> status (src/core/status) ->
// precedence/compile (src/core/precedence, src/core/compile) -> resolve (src/core/resolve).
import type {
  BackendRef, BackendTLSPolicy, ConfigMap, EndpointSlice, Gateway, GatewayClass, Listener, ListenerSet, Namespace, ReferenceGrant,
  Route, Secret, Service,
} from './objects';
import { ROUTE_KINDS, type RouteKind } from './kinds';
import type { components } from '../../generated/api';
import type { ListAt } from './chunked-list';

/** Every object the translator may look at. The worker loads only what one Gateway can depend on. */
export interface World {
  gatewayClasses: GatewayClass[];
  gateways: Gateway[];
  routes: ListAt<Route>; // all five kinds; tell them apart by `kind`
  referenceGrants: ReferenceGrant[];
  namespaces: Namespace[]; // a namespace without an object behaves as one labelled kubernetes.io/metadata.name only
  services: Service[];
  endpointSlices: EndpointSlice[];
  secrets: Secret[]; // with data
  configMaps: ConfigMap[];
  /** the BackendTLSPolicies targeting the Services the Gateway's routes reach (absent: none) */
  backendTLSPolicies?: BackendTLSPolicy[];
  /** the ListenerSets whose parentRef names a Gateway of the world (absent = none) */
  listenerSets?: ListenerSet[];
}

export interface TranslateOptions {
  controllerName: string;
  /** RFC 3339 with milliseconds; the core never reads a clock */
  now: string;
}

export interface ObjectRef {
  kind: string;
  namespace?: string;
  name: string;
}

/** One route attached to one listener through one of its parentRefs. */
export interface AttachedRoute {
  kind: RouteKind;
  route: Route;
  parentRefIndex: number;
  /** route hostnames intersected with the listener's hostname; empty = no hostname restriction */
  hostnames: string[];
}

/** The ListenerSet a listener comes from (absent: the Gateway's own). */
export interface ListenerOwner {
  namespace: string;
  name: string;
}

export interface ListenerAttachment {
  listener: Listener;
  /** for a listener merged in from a ListenerSet: which one */
  listenerSet?: ListenerOwner;
  /** false when the listener cannot carry traffic (not accepted, conflicted, unresolved refs) */
  valid: boolean;
  routes: AttachedRoute[];
}

/** A route that names this Gateway in a parentRef but is not attached, and why (for resolve's explanation). */
export interface RejectedRoute {
  kind: RouteKind;
  route: Route;
  parentRefIndex: number;
  reason: string;
  message: string;
}

export interface GatewayAttachment {
  gateway: Gateway;
  listeners: ListenerAttachment[];
  rejected: RejectedRoute[];
}

/** A ready endpoint of a backend: the compiled table's own shape. */
export type ResolvedEndpoint = components['schemas']['CompiledEndpoint'];

/**
 * A backendRef after reference resolution: kept even when unusable, so that its share is rejected.
 * The compiled table's backend, plus the reference it came from.
 */
export type BackendResolution = components["schemas"]["CompiledBackend"];

/** Sorts a flat list of objects into a World by kind (objects of kinds the World does not hold are left out). */
export function worldOf(objects: readonly { kind: string }[]): World & { routes: Route[] } {
  const of = <T>(kind: string) => objects.filter((o) => o.kind === kind) as T[];
  return {
    gatewayClasses: of('GatewayClass'),
    gateways: of('Gateway'),
    routes: objects.filter((o) => ROUTE_KIND_SET.has(o.kind)) as Route[],
    referenceGrants: of('ReferenceGrant'),
    namespaces: of('Namespace'),
    services: of('Service'),
    endpointSlices: of('EndpointSlice'),
    secrets: of('Secret'),
    configMaps: of('ConfigMap'),
    backendTLSPolicies: of('BackendTLSPolicy'),
    listenerSets: of('ListenerSet'),
  };
}

const ROUTE_KIND_SET: ReadonlySet<string> = new Set(ROUTE_KINDS);
