// The server name of a TLS connection, read from its ClientHello without terminating TLS: what a
// passthrough listener routes by. The bytes arrive in pieces (a ClientHello may be split over several
// reads, and over several TLS records), so the parser says "need more" until it has the whole
// handshake message; a connection that sends more than the limit before its ClientHello is whole,
// or anything but a ClientHello, is refused.

/** How many bytes a ClientHello may take (post-quantum key shares make them a few KB; 16 KB is one record). */
export const CLIENT_HELLO_LIMIT = 64 * 1024;

export type ClientHello =
  | { state: 'more' }
  | { state: 'done'; serverName: string; alpn: string[] }
  | { state: 'invalid'; reason: string };

const RECORD_HANDSHAKE = 0x16;
const HANDSHAKE_CLIENT_HELLO = 0x01;
const EXT_SERVER_NAME = 0x0000;
const EXT_ALPN = 0x0010;

/** Parses what has arrived so far (every byte since the connection opened). */
export function parseClientHello(buf: Buffer, limit = CLIENT_HELLO_LIMIT): ClientHello {
  // the handshake message, reassembled from the payloads of consecutive handshake records
  const parts: Buffer[] = [];
  let have = 0;
  let need = -1;
  let at = 0;
  while (need < 0 || have < need) {
    if (buf.length - at < 5) return more(buf, limit);
    if (buf[at] !== RECORD_HANDSHAKE) return { state: 'invalid', reason: at === 0 ? 'not a TLS handshake' : 'a ClientHello interrupted by another record type' };
    if (buf[at + 1] !== 0x03) return { state: 'invalid', reason: 'not a TLS record version' };
    const len = buf.readUInt16BE(at + 3);
    if (len === 0 || len > 16384 + 2048) return { state: 'invalid', reason: `a TLS record of ${len} bytes` };
    if (buf.length - at - 5 < len) return more(buf, limit);
    parts.push(buf.subarray(at + 5, at + 5 + len));
    have += len;
    at += 5 + len;
    if (need < 0 && have >= 4) {
      const head = Buffer.concat(parts);
      if (head[0] !== HANDSHAKE_CLIENT_HELLO) return { state: 'invalid', reason: 'the first handshake message is not a ClientHello' };
      need = 4 + head.readUIntBE(1, 3);
      if (need > limit) return { state: 'invalid', reason: `a ClientHello of ${need} bytes (the limit is ${limit})` };
    }
  }
  return helloBody(Buffer.concat(parts).subarray(4, need));
}

function more(buf: Buffer, limit: number): ClientHello {
  return buf.length >= limit ? { state: 'invalid', reason: `no whole ClientHello in the first ${limit} bytes` } : { state: 'more' };
}

/** The ClientHello body: version, random, session id, cipher suites, compression, extensions. */
function helloBody(b: Buffer): ClientHello {
  const bad = (what: string): ClientHello => ({ state: 'invalid', reason: `a malformed ClientHello (${what})` });
  let at = 2 + 32;
  if (b.length < at + 1) return bad('too short');
  at += 1 + b[at]; // session id
  if (b.length < at + 2) return bad('no cipher suites');
  at += 2 + b.readUInt16BE(at);
  if (b.length < at + 1) return bad('no compression methods');
  at += 1 + b[at];
  let serverName = '';
  let alpn: string[] = [];
  if (at === b.length) return { state: 'done', serverName, alpn }; // no extensions at all
  if (b.length < at + 2) return bad('a cut extension list');
  const end = at + 2 + b.readUInt16BE(at);
  if (end > b.length) return bad('extensions past the end');
  at += 2;
  while (at + 4 <= end) {
    const type = b.readUInt16BE(at);
    const len = b.readUInt16BE(at + 2);
    const data = b.subarray(at + 4, at + 4 + len);
    if (data.length !== len || at + 4 + len > end) return bad('an extension past the end');
    if (type === EXT_SERVER_NAME) {
      const name = hostName(data);
      if (name === undefined) return bad('server_name');
      serverName = name;
    } else if (type === EXT_ALPN) {
      const list = protocols(data);
      if (list === undefined) return bad('application_layer_protocol_negotiation');
      alpn = list;
    }
    at += 4 + len;
  }
  return { state: 'done', serverName, alpn };
}

/** server_name (RFC 6066 §3): a list of names, of which host_name (0) is the only type in use. */
function hostName(d: Buffer): string | undefined {
  if (d.length < 2 || d.readUInt16BE(0) + 2 !== d.length) return undefined;
  let at = 2;
  while (at + 3 <= d.length) {
    const type = d[at];
    const len = d.readUInt16BE(at + 1);
    if (at + 3 + len > d.length) return undefined;
    if (type === 0) {
      const name = d.subarray(at + 3, at + 3 + len).toString('latin1');
      // a host name is ASCII letters, digits, hyphens and dots; anything else selects no listener
      return /^[A-Za-z0-9.-]*$/.test(name) ? name.toLowerCase().replace(/\.$/, '') : undefined;
    }
    at += 3 + len;
  }
  return '';
}

function protocols(d: Buffer): string[] | undefined {
  if (d.length < 2 || d.readUInt16BE(0) + 2 !== d.length) return undefined;
  const out: string[] = [];
  for (let at = 2; at < d.length;) {
    const len = d[at];
    if (len === 0 || at + 1 + len > d.length) return undefined;
    out.push(d.subarray(at + 1, at + 1 + len).toString('latin1'));
    at += 1 + len;
  }
  return out;
}
