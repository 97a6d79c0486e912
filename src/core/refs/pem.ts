// Just enough PEM to tell a usable TLS Secret or CA bundle from a malformed one: blocks with a
// label, a strictly base64 body, and a body that is DER (an ASN.1 SEQUENCE). No cryptography.

export interface PemBlock {
  label: string;
  der: Uint8Array;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Strict base64 (padding required, whitespace ignored); null when it is not base64. */
export function decodeBase64(text: string): Uint8Array | null {
  const s = text.replace(/\s+/g, '');
  if (s.length % 4 !== 0 || !BASE64.test(s)) return null;
  try {
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

export function decodeUtf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

/** Every well-formed PEM block of the text; malformed blocks are skipped. */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const body = m[2].split(/\r?\n/).filter((line) => !/^[A-Za-z-]+:/.test(line.trim())).join('');
    const der = decodeBase64(body);
    if (der && der.length > 0 && der[0] === 0x30) out.push({ label: m[1], der });
  }
  return out;
}

export function hasCertificate(text: string): boolean {
  return pemBlocks(text).some((b) => b.label === 'CERTIFICATE');
}

export function hasPrivateKey(text: string): boolean {
  return pemBlocks(text).some((b) => /(^|\s)PRIVATE KEY$/.test(b.label));
}
