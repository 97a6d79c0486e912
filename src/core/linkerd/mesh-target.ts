// The Service port a Linkerd request names, found in a client namespace's mesh table.
import type { MeshService, MeshServicePort, MeshTable } from '../mesh/types';
import { byName, portOf } from '../mesh/lookup';
import type { DestinationTarget } from './destination-path';
import { canonicalIP } from './ip';

export interface MeshPort { service: MeshService; port: MeshServicePort }

export function meshPortOf(table: MeshTable, target: DestinationTarget): MeshPort | undefined {
  const service = target.by === 'name'
    ? byName(table, target.namespace, target.service)
    : table.services.find((s) => s.clusterIPs.some((ip) => ip === target.ip || canonicalIP(ip) === canonicalIP(target.ip)));
  const port = service && service.ports.some((p) => p.port === target.port) ? portOf(service, target.port) : undefined;
  return service && port ? { service, port } : undefined;
}

/** proto Duration of a number of milliseconds */
export function duration(ms: number): { seconds: string; nanos: number } {
  return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

export function serviceRef(namespace: string, name: string, port?: number) {
  return { resource: { group: 'core', kind: 'Service', namespace, name, ...(port ? { port } : {}) } };
}

/** The HTTP statuses as ranges of consecutive ones. */
export function statusRanges(codes: readonly number[]): { min: number; max: number }[] {
  const out: { min: number; max: number }[] = [];
  for (const c of [...codes].sort((a, b) => a - b)) {
    const last = out.at(-1);
    if (last && c === last.max + 1) last.max = c;
    else if (!last || c > last.max) out.push({ min: c, max: c });
  }
  return out;
}
