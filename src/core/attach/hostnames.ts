// A route's hostnames against a listener's, and listener hostnames against each other, with the
// hostname rules of match/hostname.ts (the proxies' matcher uses the same ones).
import { covers, intersectHostname } from '../match/hostname';
import { trimmed } from '../model/trimmed';

export interface HostnameMatch {
  /** false when both sides name hostnames and none intersect */
  ok: boolean;
  /** the hostnames the route serves on this listener; [] = no restriction */
  hostnames: string[];
}

/**
 * A route's hostnames against a listener's hostname. A listener without hostname takes the route's
 * hostnames as they are; a route without hostnames takes the listener's; otherwise route hostnames
 * that do not intersect the listener's are ignored, and the route matches only if one remains.
 */
export function matchListenerHostname(listenerHostname: string | undefined, routeHostnames: readonly string[] | undefined): HostnameMatch {
  const route = [...new Set((routeHostnames ?? []).filter((h) => typeof h === 'string' && h !== '').map((h) => h.toLowerCase()))];
  const listener = listenerHostname ? listenerHostname.toLowerCase() : '';
  if (!listener) return { ok: true, hostnames: trimmed(route) };
  if (route.length === 0) return { ok: true, hostnames: [listener] };
  const out: string[] = [];
  for (const h of route) {
    const i = intersectHostname(listener, h);
    if (i !== undefined && !out.includes(i)) out.push(i);
  }
  return { ok: out.length > 0, hostnames: trimmed(out) };
}

/** Do two listener hostnames overlap (one could receive a request meant for the other)? Empty = any. */
export function hostnamesOverlap(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return true;
  return covers(a, b) || covers(b, a);
}
