// Host-based selection as Envoy performs it (virtual host domains, filter chain server_names:
// exact, then the longest "*." suffix, then the catch-all) stated as Gateway API's (the listener
// whose hostname names the host most specifically, then that listener's entries whose hostname
// accepts it). Both choose by the most specific pattern, so a domain set that holds every
// listener's and every entry's hostname gives, per domain, one answer for all the hosts Envoy
// sends to it: the one a representative host of that domain gets from the reference proxy.
import type { CompiledListener } from '../../compile';
import { covers, hostnameSpecificity } from '../../match/hostname';

/** Does hostname pattern `p` ("" = any) accept every host the domain pattern `d` ("" = the rest) stands for? */
export function accepts(p: string, d: string): boolean {
  if (p === '') return true;
  if (d === '') return false;
  return covers(p, d);
}

/** The listener the hosts of domain `d` select, as selectListener does for one host. */
export function listenerForDomain<L extends Pick<CompiledListener, 'hostname'>>(candidates: readonly L[], d: string): L | undefined {
  let best: L | undefined;
  let rank: [number, number] = [-1, -1];
  for (const l of candidates) {
    const h = (l.hostname ?? '').toLowerCase();
    if (!accepts(h, d)) continue;
    const [e, len] = hostnameSpecificity(h);
    if (e > rank[0] || (e === rank[0] && len > rank[1])) {
      best = l;
      rank = [e, len];
    }
  }
  return best;
}

/** Envoy's order: exact names, then wildcards by longer suffix, then the catch-all; ties by name. */
export function sortDomains(domains: Iterable<string>): string[] {
  return [...new Set(domains)].sort((a, b) => {
    const [ea, la] = hostnameSpecificity(a);
    const [eb, lb] = hostnameSpecificity(b);
    if (ea !== eb) return eb - ea;
    if (la !== lb) return lb - la;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/** A domain as Envoy writes it: "" (every other host) is "*". */
export const envoyDomain = (d: string): string => (d === '' ? '*' : d);
