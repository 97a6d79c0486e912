// Hostnames as Gateway API compares them: case-insensitive, a leading "*." label is a suffix match
// over one or more labels ("*.example.com" matches "a.example.com" and "a.b.example.com", not
// "example.com"), "" means any hostname.

/** The Host header / :authority / SNI as matched: lower case, without ":port" and a trailing dot. */
export function normalizeHost(raw: string | undefined | null): string {
  if (!raw) return '';
  let h = raw.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end > 0 ? h.slice(0, end + 1) : h;
  }
  const colon = h.lastIndexOf(':');
  if (colon >= 0 && h.indexOf(':') === colon) h = h.slice(0, colon);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

export function isWildcard(hostname: string): boolean {
  return hostname.startsWith('*.');
}

/** Does pattern ("" = any, "*.x", or exact) accept host? An empty host only matches "". */
export function hostnameMatches(pattern: string, host: string): boolean {
  if (pattern === '') return true;
  if (host === '') return false;
  const p = pattern.toLowerCase();
  if (isWildcard(p)) {
    const suffix = p.slice(1); // ".example.com"
    return host.length > suffix.length && host.endsWith(suffix);
  }
  return p === host;
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

/**
 * The one hostname intersection of Gateway API ("" = any): the more specific of two hostnames when
 * one covers the other, else none. Listener "*.example.com" and route "foo.example.com" give
 * "foo.example.com"; route "*.com" gives "*.example.com".
 */
export function intersectHostname(a: string, b: string): string | undefined {
  if (a === '') return b.toLowerCase();
  if (b === '') return a.toLowerCase();
  if (covers(a, b)) return b.toLowerCase();
  if (covers(b, a)) return a.toLowerCase();
  return undefined;
}

/** Effective hostnames of a route on a listener: the intersections, or the listener's own. */
export function effectiveHostnames(listenerHostname: string | undefined, routeHostnames: readonly string[] | undefined): string[] {
  const l = (listenerHostname ?? '').toLowerCase();
  if (!routeHostnames || routeHostnames.length === 0) return [l];
  const out = new Set<string>();
  for (const r of routeHostnames) {
    const i = intersectHostname(l, r);
    if (i !== undefined) out.add(i);
  }
  return [...out];
}

/**
 * How specifically a hostname pattern names a host, for choosing among listeners and ordering
 * routes: [characters when not a wildcard, characters]. "" ranks [0, 0].
 */
export function hostnameSpecificity(hostname: string): [number, number] {
  if (hostname === '') return [0, 0];
  return [isWildcard(hostname) ? 0 : hostname.length, hostname.length];
}
