// Whether a TLS Secret's certificate and key can serve: every CERTIFICATE block of tls.crt parses as
// an X.509 certificate, tls.key parses as a private key, and that key belongs to the first (leaf)
// certificate. node:crypto parses; nothing is read from outside and no clock is consulted (validity
// dates are the proxy's concern), so the answer is a pure function of the two texts.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { pemBlocks } from './pem';

const CACHE_LIMIT = 512;
// a pure function of two strings, asked again on every recompute of every Gateway using the Secret
const cache = new Map<string, string | undefined>();

/** Why tls.crt and tls.key do not make a usable pair, or undefined when they do. */
export function keyPairProblem(crt: string, key: string): string | undefined {
  const k = `${crt}\0${key}`;
  if (cache.has(k)) return cache.get(k);
  const out = check(crt, key);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(k, out);
  return out;
}

function check(crt: string, keyText: string): string | undefined {
  const certs = pemBlocks(crt).filter((b) => b.label === 'CERTIFICATE');
  let leaf: X509Certificate | undefined;
  for (const [i, b] of certs.entries()) {
    try {
      const c = new X509Certificate(b.der);
      leaf ??= c;
    } catch {
      return `has a tls.crt whose ${certs.length > 1 ? `certificate ${i + 1} of ${certs.length}` : 'CERTIFICATE block'} is not an X.509 certificate`;
    }
  }
  if (!leaf) return 'has a tls.crt that holds no PEM certificate';
  let key;
  try {
    key = createPrivateKey({ key: keyText, format: 'pem' });
  } catch {
    return 'has a tls.key that is not a readable private key (PKCS#8, PKCS#1 or SEC 1 PEM)';
  }
  if (!leaf.checkPrivateKey(key)) return 'has a tls.key that does not belong to the certificate in tls.crt';
  return undefined;
}

