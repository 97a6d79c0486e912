// The TLS a proxy originates to a backend, from the table (CompiledBackend.tls, from the
// BackendTLSPolicy of the Service port): the server name sent, the CAs the endpoint's certificate must
// chain to (the policy's ConfigMaps inline, its Secrets from the snapshot, or the system's), the
// names the certificate must carry (the policy's subjectAltNames, else the SNI as a DNS name), and
// the Gateway's client certificate when it names one. Made once per table and backend.
import { createHash } from 'node:crypto';
import tls from 'node:tls';
import type { CompiledBackend, CompiledBackendTLS } from '../core/compile/types';
import type { ServedTable } from './tables';

export interface OriginateTLS {
  servername: string;
  ca?: string[];
  cert?: string;
  key?: string;
  checkServerIdentity: (host: string, cert: tls.PeerCertificate) => Error | undefined;
  /** what identifies these options in a connection pool: a digest of everything the handshake uses */
  key_: string;
}

const cache = new WeakMap<ServedTable, Map<CompiledBackendTLS, OriginateTLS>>();

function secretData(served: ServedTable, ref: { namespace: string; name: string }, item: string): string | undefined {
  const s = served.secrets.find((x) => x.namespace === ref.namespace && x.name === ref.name);
  const v = s?.data?.[item];
  return v ? Buffer.from(v, 'base64').toString('utf8') : undefined;
}

/** The certificate's SANs as "DNS:x" / "URI:y" entries. */
function sansOf(cert: tls.PeerCertificate): string[] {
  return (cert.subjectaltname ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

export function originateTLS(served: ServedTable, b: CompiledBackend): OriginateTLS | undefined {
  const t = b.tls;
  if (!t) return undefined;
  let byTLS = cache.get(served);
  if (!byTLS) cache.set(served, (byTLS = new Map()));
  const hit = byTLS.get(t);
  if (hit) return hit;
  const ca: string[] = [];
  if (t.caCertificates) ca.push(t.caCertificates);
  for (const ref of t.caCertificateSecrets ?? []) {
    const pem = secretData(served, ref, 'ca.crt');
    if (pem) ca.push(pem);
  }
  if (t.wellKnownCACertificates === 'System') ca.push(...tls.rootCertificates);
  const client = served.table.backendClientCertificate;
  const cert = client ? secretData(served, client, 'tls.crt') : undefined;
  const key = client ? secretData(served, client, 'tls.key') : undefined;
  const wanted = t.subjectAltNames ?? [];
  const checkServerIdentity = (_host: string, peer: tls.PeerCertificate): Error | undefined => {
    if (wanted.length === 0) return tls.checkServerIdentity(t.sni, peer);
    const have = new Set(sansOf(peer));
    if (wanted.some((w) => have.has(`${w.type === 'URI' ? 'URI' : 'DNS'}:${w.value}`))) return undefined;
    return new Error(`the backend's certificate names none of ${wanted.map((w) => w.value).join(', ')} (it has ${[...have].join(', ') || 'no SANs'})`);
  };
  const out: OriginateTLS = {
    servername: t.sni, ...(ca.length ? { ca } : {}), ...(cert && key ? { cert, key } : {}), checkServerIdentity,
    // by content, not by table version: a swap that leaves the TLS as it was keeps the connections
    key_: createHash('sha256').update(JSON.stringify([t.sni, ca, cert ?? '', key ?? '', wanted.map((w) => `${w.type}:${w.value}`)])).digest('hex'),
  };
  byTLS.set(t, out);
  return out;
}
