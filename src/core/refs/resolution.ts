// Step 3, resolve: the references of a Gateway's result that the listener step did not resolve —
// the backend client certificate, and every reference of every route naming the Gateway. Status
// and compile read these answers; neither resolves a reference itself. (Listener certificates and
// CA bundles are resolved by the listener step, whose conditions depend on them.)
import type { Gateway, Route } from '../model/objects';
import { resolveClientCertificate, type SecretRefResult } from './certificates';
import { routeRefs, type RouteRefs } from './route-refs';
import type { WorldView } from './lookup';

export interface ResolvedReferences {
  /** spec.tls.backend.clientCertificateRef; undefined when the Gateway has none */
  clientCertificate?: SecretRefResult;
  routes: Map<Route, RouteRefs>;
}

export function resolveReferences(view: WorldView, gateway: Gateway, routes: readonly Route[]): ResolvedReferences {
  const out = new Map<Route, RouteRefs>();
  for (const route of routes) out.set(route, routeRefs(view, route));
  return { clientCertificate: resolveClientCertificate(view, gateway), routes: out };
}

/** The resolution of one route's references: the step's answer, or (for a route outside it) the same memoized one. */
export function refsOf(view: WorldView, refs: ResolvedReferences): (route: Route) => RouteRefs {
  return (route) => refs.routes.get(route) ?? routeRefs(view, route);
}
