// A self-signed certificate for the Kubernetes paths' TLS: kubectl sends a bearer token only over
// TLS (client-go drops credentials on plain http), so the server needs one even on a laptop. Made
// with node:crypto alone (a P-256 key, the X.509 DER written here), kept in the data folder so the
// kubeconfig's certificate authority stays valid across restarts.
import { createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
};
const seq = (...parts: Buffer[]) => tlv(0x30, ...parts);
const set = (...parts: Buffer[]) => tlv(0x31, ...parts);
const octets = (b: Buffer) => tlv(0x04, b);
const bits = (b: Buffer) => tlv(0x03, Buffer.from([0]), b);
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));

/** A non-negative DER INTEGER: minimal, so no leading zero byte unless the next one has its high bit set. */
function integer(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  const trimmed = b.subarray(i);
  return tlv(0x02, trimmed[0] & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [a * 40 + b];
  for (const n of rest) {
    const chunk: number[] = [];
    for (let v = n; ; v = Math.floor(v / 128)) {
      chunk.unshift((v & 0x7f) | (chunk.length ? 0x80 : 0));
      if (v < 128) break;
    }
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function time(d: Date): Buffer {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(s.slice(2))) : tlv(0x18, Buffer.from(s));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head, tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return Buffer.concat(groups.map((g) => { const b = Buffer.alloc(2); b.writeUInt16BE(parseInt(g, 16)); return b; }));
}

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

/** A self-signed certificate (its own authority) for these DNS names and IP addresses, and its key, as PEM. */
export function selfSignedCertificate(names: string[], now = new Date(), days = 3650): { cert: string; key: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = seq(set(seq(oid('2.5.4.3'), utf8('switchyard'))));
  const san = seq(...[...new Set(names)].map((n) => (isIP(n) ? tlv(0x87, ipBytes(n)) : tlv(0x82, Buffer.from(n, 'ascii')))));
  const extensions = seq(
    seq(oid('2.5.29.19'), bool(true), octets(seq(bool(true)))),
    // digitalSignature and keyCertSign
    seq(oid('2.5.29.15'), bool(true), octets(tlv(0x03, Buffer.from([2, 0x84])))),
    seq(oid('2.5.29.37'), octets(seq(oid('1.3.6.1.5.5.7.3.1')))),
    seq(oid('2.5.29.17'), octets(san)),
  );
  const serial = randomBytes(16);
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(serial),
    ECDSA_SHA256,
    name,
    seq(time(new Date(now.getTime() - 60_000)), time(new Date(now.getTime() + days * 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, extensions),
  );
  const signature = sign('sha256', tbs, privateKey as KeyObject);
  const der = seq(tbs, ECDSA_SHA256, bits(signature));
  const cert = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  // parsed back once: a malformed encoding fails here, at start, not in a client
  new X509Certificate(cert);
  return { cert, key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}

/** Whether a stored pair is still usable (parses, matches, not about to expire). */
export function usablePair(cert: string, key: string, now = new Date()): boolean {
  try {
    const x = new X509Certificate(cert);
    return x.checkPrivateKey(createPrivateKey(key)) && Date.parse(x.validTo) > now.getTime() + 86_400_000;
  } catch {
    return false;
  }
}
