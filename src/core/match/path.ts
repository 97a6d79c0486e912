// Path matching and modification as Gateway API defines them.

/** PathPrefix matches whole segments; a trailing "/" of the prefix is ignored. */
export function pathPrefixMatches(prefix: string, path: string): boolean {
  const p = trimTrailingSlash(prefix);
  if (p === '') return path.startsWith('/') || path === '';
  return path === p || path.startsWith(p + '/');
}

function trimTrailingSlash(p: string): string {
  let out = p;
  while (out.endsWith('/')) out = out.slice(0, -1);
  return out;
}

/**
 * ReplacePrefixMatch: the matched prefix (whole segments) replaced, as in the table of the
 * HTTPPathModifier documentation ("/foo/bar", "/foo", "/xyz" -> "/xyz/bar"; "/foo", "/foo", "" -> "/").
 */
export function replacePrefix(path: string, prefix: string, replacement: string): string {
  const p = trimTrailingSlash(prefix);
  const rest = pathPrefixMatches(prefix, path) ? path.slice(p.length) : path;
  const out = trimTrailingSlash(replacement) + rest;
  if (out === '') return '/';
  return out.startsWith('/') ? out : '/' + out;
}

/** Splits "path?query" into its parts. */
export function splitPathQuery(raw: string): { path: string; query?: string } {
  const q = raw.indexOf('?');
  if (q < 0) return { path: raw };
  return { path: raw.slice(0, q), query: raw.slice(q + 1) };
}

/** First value of each query parameter (names are case-sensitive), from a raw query string. */
export function parseQuery(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw) return out;
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? '' : decode(part.slice(eq + 1));
    if (!(name in out)) out[name] = value;
  }
  return out;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}
