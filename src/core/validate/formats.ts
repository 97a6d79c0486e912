// The ipv4/ipv6 formats as the API server checks them: Go's net.ParseIP in its "sloppy" form
// (k8s.io/utils/net.ParseIPSloppy, which accepts leading zeros in IPv4 octets), and the format name
// must agree with the separator: ipv4 needs a '.', ipv6 a ':'.

function parseV4(s: string): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  for (const p of parts) {
    if (p.length === 0 || p.length > 3 || !/^[0-9]+$/.test(p)) return false;
    if (Number(p) > 255) return false;
  }
  return true;
}

function parseV6(s: string): boolean {
  if (s.length < 2 || s.length > 64) return false;
  let groups = 0;
  let ellipsis = false;
  let rest = s;
  if (rest.startsWith('::')) {
    ellipsis = true;
    rest = rest.slice(2);
    if (rest === '') return true;
  }
  while (rest.length > 0) {
    const m = /^[0-9a-fA-F]{1,4}/.exec(rest);
    if (!m) return false;
    // an embedded IPv4 address in the last 32 bits
    if (rest.length > m[0].length && rest[m[0].length] === '.') {
      if (!(ellipsis || groups === 6) || groups > 6) return false;
      if (!parseV4(rest)) return false;
      groups += 2;
      rest = '';
      break;
    }
    groups++;
    rest = rest.slice(m[0].length);
    if (rest === '') break;
    if (rest[0] !== ':') return false;
    if (rest.startsWith('::')) {
      if (ellipsis) return false;
      ellipsis = true;
      rest = rest.slice(2);
      if (rest === '') break;
    } else {
      rest = rest.slice(1);
      if (rest === '') return false;
    }
    if (groups > 8) return false;
  }
  return ellipsis ? groups < 8 : groups === 8;
}

export const isIPv4Format = (s: string) => s.includes('.') && (parseV4(s) || parseV6(s));
export const isIPv6Format = (s: string) => s.includes(':') && (parseV4(s) || parseV6(s));

/** CEL isIP() and core IP validation: strict parsing (no leading zeros in IPv4 octets, no zones). */
export function celIsIP(s: string): boolean {
  return s.includes(':') ? isIPv6(s) : isIPv4(s);
}

/** A plain IP address as Kubernetes core validation accepts it (EndpointSlice addresses, Service IPs). */
export const isIPv4 = (s: string) => parseV4(s) && s.split('.').every((p) => p === '0' || !p.startsWith('0'));
export function isIPv6(s: string): boolean {
  if (!s.includes(':') || !parseV6(s)) return false;
  const tail = s.slice(s.lastIndexOf(':') + 1);
  return !tail.includes('.') || isIPv4(tail);
}
