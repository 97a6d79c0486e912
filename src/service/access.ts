// Who may do what: the contract's role table as data and two questions, "may read" and "may write".
// Decided before validation, so a forbidden write is a 403 whatever its body.
import type { Principal, Role } from './principal';
import type { Actor } from './resources';

const ROUTES = ['HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute'];

export const WRITABLE: Record<Role, readonly string[] | 'all'> = {
  admin: 'all',
  operator: ["Gateway", "ListenerSet", "ReferenceGrant", "Secret", "ConfigMap", "BackendTLSPolicy"],
  developer: [...ROUTES, 'ReferenceGrant'],
  discovery: ['Service', 'EndpointSlice'],
  proxy: [],
  viewer: [],
};

/** Kinds an operator or developer may read outside its namespaces. */
const READ_EVERYWHERE = new Set(['Gateway', 'GatewayClass']);

/** The namespace an object counts as being in: a Namespace object is in itself. */
export function scopeOf(kind: string, namespace: string | undefined, name?: string): string {
  return kind === 'Namespace' ? name ?? '' : namespace ?? '';
}

function inNamespaces(p: Principal, ns: string): boolean {
  return (p.namespaces ?? []).includes(ns);
}

export function canWrite(p: Principal, kind: string, namespace: string | undefined, name?: string): boolean {
  const allowed = WRITABLE[p.role];
  if (allowed === 'all') return true;
  if (kind === 'GatewayClass' || kind === 'Namespace') return false;
  return allowed.includes(kind) && inNamespaces(p, scopeOf(kind, namespace, name));
}

export function canRead(p: Principal, kind: string, namespace: string | undefined, name?: string): boolean {
  switch (p.role) {
    case 'admin':
    case 'viewer':
      return true;
    case 'operator':
    case 'developer':
      return READ_EVERYWHERE.has(kind) || inNamespaces(p, scopeOf(kind, namespace, name));
    case 'discovery':
      return (kind === 'Service' || kind === 'EndpointSlice') && inNamespaces(p, namespace ?? '');
    case 'proxy':
      return false;
  }
}

/** Which namespaces a list of `kind` may show this caller: all, some, or none (403). */
export function listScope(p: Principal, kind: string): 'all' | string[] | null {
  switch (p.role) {
    case 'admin':
    case 'viewer':
      return 'all';
    case 'proxy':
      return null;
    case 'discovery':
      return kind === 'Service' || kind === 'EndpointSlice' ? [...(p.namespaces ?? [])] : null;
    case 'operator':
    case 'developer':
      return READ_EVERYWHERE.has(kind) ? 'all' : [...(p.namespaces ?? [])];
  }
}

export function canReadSecretData(p: Principal): boolean {
  return p.role === 'admin';
}

/** Tokens are created, listed and revoked by admins only. */
export function canManageTokens(p: Principal): boolean {
  return p.role === 'admin';
}

/** Who a write is recorded as, and whether what it answers may carry Secret data. */
export function actorOf(p: Principal): Actor {
  return { name: p.name, secretReader: canReadSecretData(p) };
}

/** What a Gateway's proxies serve is reported by its own proxy tokens (and admins), no one else. */
export function canReportProxy(p: Principal, namespace: string, name: string): boolean {
  return p.role === 'admin' || (p.role === 'proxy' && (p.gateways ?? []).includes(`${namespace}/${name}`));
}

/** Snapshots and their watch: admins, viewers (no Secret data) and the Gateway's own proxy tokens. */
/** The mesh table of the clients of a namespace: admins, viewers, and the proxy tokens of that mesh scope. */
export function canReadMeshSnapshot(p: Principal, namespace: string): boolean {
  return p.role === 'admin' || p.role === 'viewer' || (p.role === 'proxy' && p.mesh === namespace);
}

export function canReadSnapshot(p: Principal, namespace: string, name: string): 'with-secrets' | 'without-secrets' | false {
  if (p.role === 'admin') return 'with-secrets';
  if (p.role === 'viewer') return 'without-secrets';
  if (p.role === 'proxy' && (p.gateways ?? []).includes(`${namespace}/${name}`)) return 'with-secrets';
  return false;
}

/**
 * The mesh's outbound proxies of namespace `clientNamespace` through the Linkerd destination and
 * policy APIs: admins and the proxy tokens of that mesh scope (what those clients may reach is
 * every Service of the mesh, so the namespace is the whole of the scope).
 */
export function canServeMesh(p: Principal, clientNamespace: string): boolean {
  return p.role === 'admin' || (p.role === 'proxy' && p.mesh === clientNamespace);
}
