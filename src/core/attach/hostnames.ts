// Hostname matching as the Gateway API defines it. A wildcard hostname "*.example.com" is a suffix
// match over one or more labels: it matches "a.example.com" and "a.b.example.com", never
// "example.com". Hostnames are compared case-insensitively.

export function isWildcard(h: string): boolean {
  return h.startsWith('*.');
}

/** Does `pattern` cover `host` (each exact or a wildcard)? A wildcard covers the wildcards under it. */
export function covers(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  const h = host.toLowerCase();
  if (p === h) return true;
  if (!isWildcard(p)) return false;
  const suffix = p.slice(1); // ".example.com"
  if (isWildcard(h)) return h.slice(1).endsWith(suffix) && h.length - 1 > suffix.length;
  return h.endsWith(suffix) && h.length > suffix.length;
}

/** The intersection of two hostnames: the more specific one when one covers the other, else none. */
export function intersect(a: string, b: string): string | undefined {
  if (covers(a, b)) return b.toLowerCase();
  if (covers(b, a)) return a.toLowerCase();
  return undefined;
}

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
  if (!listener) return { ok: true, hostnames: route };
  if (route.length === 0) return { ok: true, hostnames: [listener] };
  const out: string[] = [];
  for (const h of route) {
    const i = intersect(listener, h);
    if (i !== undefined && !out.includes(i)) out.push(i);
  }
  return { ok: out.length > 0, hostnames: out };
}

/** Do two listener hostnames overlap (one could receive a request meant for the other)? Empty = any. */
export function hostnamesOverlap(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return true;
  return covers(a, b) || covers(b, a);
}
