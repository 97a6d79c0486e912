// IP addresses as Linkerd's net.IPAddress carries them: IPv4 as one 32-bit number, IPv6 as two
// 64-bit halves (decimal strings, as the loaded protos read 64-bit numbers), and back.

/** 4, 6, or 0 for neither (the same answers as node:net's isIP, without importing it into the core). */
export function isIP(text: string): 0 | 4 | 6 {
  if (/^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(text)) return 4;
  return ipv6Groups(text) ? 6 : 0;
}

function ipv6Groups(text: string): number[] | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.length > 45) return null;
  let tail: number[] = [];
  let body = text;
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    if (isIP(dotted[2]) !== 4) return null;
    const o = dotted[2].split('.').map(Number);
    tail = [(o[0] << 8) | o[1], (o[2] << 8) | o[3]];
    body = dotted[1].endsWith('::') ? dotted[1] : dotted[1].slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => (/^[0-9a-fA-F]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  if ([...head, ...rest].some(Number.isNaN)) return null;
  const known = head.length + rest.length + tail.length;
  if (halves.length === 1) return known === 8 ? [...head, ...tail] : null;
  if (known > 7) return null;
  return [...head, ...new Array<number>(8 - known).fill(0), ...rest, ...tail];
}

export type IPAddressMessage = { ipv4: number } | { ipv6: { first: string; last: string } };

export function ipMessage(text: string): IPAddressMessage | null {
  if (isIP(text) === 4) {
    const o = text.split('.').map(Number);
    return { ipv4: ((o[0] << 24) >>> 0) + (o[1] << 16) + (o[2] << 8) + o[3] };
  }
  const g = ipv6Groups(text);
  if (!g) return null;
  const half = (gs: number[]) => gs.reduce((acc, x) => (acc << 16n) | BigInt(x), 0n).toString();
  return { ipv6: { first: half(g.slice(0, 4)), last: half(g.slice(4)) } };
}

/** The text of a net.IPAddress (IPv6 in its full, uncompressed form). */
export function ipText(m: { ipv4?: number | null; ipv6?: { first: string | number; last: string | number } | null }): string {
  if (typeof m.ipv4 === 'number') return [24, 16, 8, 0].map((s) => (m.ipv4! >>> s) & 255).join('.');
  if (!m.ipv6) return '';
  const groups = (v: string | number) => {
    const n = BigInt(v);
    return [48n, 32n, 16n, 0n].map((s) => ((n >> s) & 0xffffn).toString(16));
  };
  return [...groups(m.ipv6.first), ...groups(m.ipv6.last)].join(':');
}

/** An IP's canonical text: what the IPv6 of an endpoint and that of a message compare as. */
export function canonicalIP(text: string): string | null {
  const m = ipMessage(text);
  return m ? ipText(m as never) : null;
}
