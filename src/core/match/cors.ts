// Origin matching for the CORS filter: "<scheme>://<host>(:<port>)", the port defaulting to 80 for
// http and 443 for https; "*" alone allows every origin; a "*" in the host is a greedy match to
// the left (any number of labels).

interface Origin {
  scheme: string;
  host: string;
  port: string;
}

function parseOrigin(value: string): Origin | undefined {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/:]+|\[[^\]]+\])(?::(\d+))?\/?$/.exec(value.trim());
  if (!m) return undefined;
  const scheme = m[1].toLowerCase();
  const port = m[3] ?? (scheme === 'http' ? '80' : scheme === 'https' ? '443' : '');
  return { scheme, host: m[2].toLowerCase(), port: String(Number(port) || port) };
}

export function originAllowed(allowOrigins: readonly string[], origin: string): boolean {
  const o = parseOrigin(origin);
  for (const pattern of allowOrigins) {
    if (pattern === '*') return true;
    if (!o) continue;
    const p = parseOrigin(pattern);
    if (!p || p.scheme !== o.scheme || p.port !== o.port) continue;
    if (hostAllowed(p.host, o.host)) return true;
  }
  return false;
}

function hostAllowed(pattern: string, host: string): boolean {
  const star = pattern.indexOf('*');
  if (star < 0) return pattern === host;
  if (pattern === '*') return true;
  const before = pattern.slice(0, star);
  const after = pattern.slice(star + 1);
  return host.length > before.length + after.length && host.startsWith(before) && host.endsWith(after);
}
