// Names of the xDS resources the translations make: stable for the same table content, so that a
// client holding a resource at some version, on any API process, is not sent it again.
import type { CompiledBackend, CompiledRoute } from '../compile';

/** The cluster every unusable share routes to: it has no endpoints, so gRPC answers UNAVAILABLE (Envoy 503). */
export const UNUSABLE_CLUSTER = 'switchyard/unusable-backend';

/** A usable backend's cluster (and its ClusterLoadAssignment): one per Service port. */
export const clusterName = (b: Pick<CompiledBackend, 'namespace' | 'name' | 'port' | 'kind'>): string =>
  `${b.kind === 'Service' ? '' : `${b.kind}:`}${b.namespace}/${b.name}:${b.port ?? 0}`;

export const routeName = (r: Pick<CompiledRoute, 'kind' | 'namespace' | 'name'>, ruleIndex: number, matchIndex: number): string =>
  `${r.kind}/${r.namespace}/${r.name}/rule/${ruleIndex}/match/${matchIndex}`;

/** A proxyless client's listener name: "<hostname>:<port>" (the target xds:///<hostname>:<port>). */
export function parseListenerName(name: string): { host: string; port: number } | null {
  const at = name.lastIndexOf(':');
  if (at <= 0) return null;
  const port = Number(name.slice(at + 1));
  if (!Number.isInteger(port) || port < 1 || port > 65535 || String(port) !== name.slice(at + 1)) return null;
  const host = name.slice(0, at).toLowerCase();
  if (host.includes('[') || host.includes('/')) return null;
  return { host, port };
}
