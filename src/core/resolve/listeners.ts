// Which listener takes a request. Among the valid listeners of the port that speak the request's
// protocol, the one whose hostname names the host most specifically wins (exact, then the longest
// wildcard, then a listener without hostname): listener isolation - a request is matched only
// against the routes of the listener it selected.
import type { CompiledListener, CompiledTable } from '../compile/types';
import { hostnameMatches, hostnameSpecificity } from '../match/hostname';
import type { Protocol } from './request';

/** The listener protocols a request of each protocol may arrive on. */
export const LISTENER_PROTOCOLS: Record<Protocol, readonly string[]> = {
  http: ['HTTP'],
  grpc: ['HTTP', 'HTTPS'],
  https: ['HTTPS', 'TLS'],
  tls: ['TLS', 'HTTPS'],
  tcp: ['TCP'],
  udp: ['UDP'],
};

export function defaultPort(table: CompiledTable, protocol: Protocol): number | undefined {
  const ports = table.listeners.filter((l) => LISTENER_PROTOCOLS[protocol].includes(l.protocol)).map((l) => l.port);
  return ports.length ? Math.min(...ports) : undefined;
}

/** The most specific listener for a name ("" = no name: only hostname-less listeners). */
export function selectListener(candidates: readonly CompiledListener[], name: string): CompiledListener | undefined {
  let best: CompiledListener | undefined;
  let bestRank: [number, number] = [-1, -1];
  for (const l of candidates) {
    const h = l.hostname ?? '';
    if (!hostnameMatches(h, name)) continue;
    const [e, len] = hostnameSpecificity(h);
    if (e > bestRank[0] || (e === bestRank[0] && len > bestRank[1])) {
      best = l;
      bestRank = [e, len];
    }
  }
  return best;
}

export function describeListener(l: CompiledListener): string {
  const host = l.protocol === 'TCP' || l.protocol === 'UDP' ? '' : l.hostname ? `, hostname ${l.hostname}` : ', any hostname';
  // names are unique per Gateway or ListenerSet only
  const owner = l.listenerSet ? ` of ListenerSet ${l.listenerSet.namespace}/${l.listenerSet.name}` : '';
  return `listener "${l.name}"${owner} (port ${l.port}, ${l.protocol}${host})`;
}
