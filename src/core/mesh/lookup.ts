// Finding the Service a mesh client connects to: by address (a cluster IP: MeshClusterIPMatching)
// or by name, as cluster DNS names it for a client of the table's namespace:
// <service>.<namespace>.svc.<clusterDomain>, <service>.<namespace>.svc, <service>.<namespace>, and
// <service> alone for a Service of the client's own namespace. The Host header plays no part: the
// Service is what the client connects to (GEP-1294's frontend), not what it says in Host.
import type { MeshService, MeshServicePort, MeshTable } from './types';

/** 4 or 6 for an IPv4 or IPv6 literal, else 0 (the core reads no sockets, so no node:net). */
export function isIP(s: string): 0 | 4 | 6 {
  if (/^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(s)) return 4;
  return /^[0-9a-fA-F:.]+$/.test(s) && s.split(':').length > 2 ? 6 : 0;
}

export interface MeshTarget {
  service: MeshService;
  port: MeshServicePort;
}

/** Splits "host:port", "[v6]:port", "v6" or "host" (a bare IPv6 address has no port). */
export function splitAuthority(authority: string): { host: string; port?: number } {
  const a = authority.trim();
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(a);
  if (v6) return { host: v6[1], ...(v6[2] ? { port: Number(v6[2]) } : {}) };
  if (isIP(a) === 6) return { host: a };
  const at = a.lastIndexOf(':');
  if (at > 0 && /^\d+$/.test(a.slice(at + 1))) return { host: a.slice(0, at), port: Number(a.slice(at + 1)) };
  return { host: a };
}

/** The Service a host (a name or an address) means for clients of the table's namespace; undefined when none. */
export function findService(table: MeshTable, host: string): MeshService | undefined {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (isIP(h)) return table.services.find((s) => s.clusterIPs.includes(h));
  const suffix = `.svc.${table.clusterDomain.toLowerCase()}`;
  const name = h.endsWith(suffix) ? h.slice(0, -suffix.length) : h.endsWith('.svc') ? h.slice(0, -4) : h;
  const parts = name.split('.');
  if (parts.length === 1) return byName(table, table.namespace, parts[0]);
  if (parts.length === 2) return byName(table, parts[1], parts[0]);
  return undefined;
}

export function byName(table: MeshTable, namespace: string, name: string): MeshService | undefined {
  return table.services.find((s) => s.namespace === namespace && s.name === name);
}

/** The port of a Service; with none given, its first TCP port. */
export function portOf(service: MeshService, port: number | undefined): MeshServicePort | undefined {
  if (port === undefined) return service.ports.find((p) => p.protocol === 'TCP') ?? service.ports[0];
  return service.ports.find((p) => p.port === port && p.protocol === 'TCP') ?? service.ports.find((p) => p.port === port);
}

/** Service and port of an authority ("host:port"; `defaultPort` when it has none). */
export function findTarget(table: MeshTable, authority: string, defaultPort?: number): MeshTarget | undefined {
  const { host, port } = splitAuthority(authority);
  const service = findService(table, host);
  const p = service && portOf(service, port ?? defaultPort);
  return service && p ? { service, port: p } : undefined;
}
