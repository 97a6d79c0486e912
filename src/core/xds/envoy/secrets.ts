// The SDS secrets a table names, made from the Secret data its snapshot carries (given only to the
// Gateway's proxy tokens): a listener's or the backend client certificate as tls_certificate, and
// per BackendTLSPolicy the CA bundle it validates backends with (its ConfigMaps' PEM, which travel
// in the table, then its Secrets' ca.crt) as validation_context. A certificate whose Secret data is
// missing is not sent, and said so: Envoy waits for it and keeps the listener's chain warming.
import type { CompiledBackendTLS, CompiledTable, SnapshotSecret } from '../../compile';
import type { Unsupported } from '../types';
import { backendCaSecretName, certificateSecretName } from './names';
import type { Msg } from './types';

const fromBase64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');

export function envoySecrets(table: CompiledTable, secrets: readonly SnapshotSecret[], unsupported: Unsupported[]): Map<string, Msg> {
  const out = new Map<string, Msg>();
  const byName = new Map(secrets.map((s) => [`${s.namespace}/${s.name}`, s]));
  const certificate = (ref: { namespace: string; name: string }, where: string) => {
    const name = certificateSecretName(ref);
    if (out.has(name)) return;
    const s = byName.get(name);
    const crt = s?.data?.['tls.crt'];
    const key = s?.data?.['tls.key'];
    if (!crt || !key) {
      unsupported.push({ where, feature: `Secret ${name}`, effect: 'its data is not in the snapshot: the SDS secret is not sent, and Envoy waits for it' });
      return;
    }
    out.set(name, { name, tls_certificate: { certificate_chain: { inline_bytes: crt }, private_key: { inline_bytes: key } } });
  };
  for (const l of table.listeners) {
    if (!l.valid || !l.tls?.certificateRefs.length || l.tls.mode !== 'Terminate') continue;
    certificate(l.tls.certificateRefs[0], `listener ${l.name}`);
  }
  if (table.backendClientCertificate) certificate(table.backendClientCertificate, 'Gateway spec.tls.backend');
  const policies = new Map<string, CompiledBackendTLS>();
  for (const rule of table.rules) {
    const backends = [...rule.backends, ...rule.filters.flatMap((f) => (f.requestMirror ? [f.requestMirror.backend] : []))];
    for (const b of backends) if (b.valid && b.tls && b.tls.wellKnownCACertificates !== 'System') policies.set(backendCaSecretName(b.tls.policy), b.tls);
  }
  for (const [name, tls] of [...policies].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const pem = [tls.caCertificates ?? ''];
    for (const ref of tls.caCertificateSecrets ?? []) {
      const ca = byName.get(`${ref.namespace}/${ref.name}`)?.data?.['ca.crt'];
      if (ca) pem.push(fromBase64(ca));
      else unsupported.push({ where: `BackendTLSPolicy ${tls.policy.namespace}/${tls.policy.name}`, feature: `Secret ${ref.namespace}/${ref.name}`, effect: 'its ca.crt is not in the snapshot: the bundle is sent without it' });
    }
    const bundle = pem.filter(Boolean).map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join('');
    out.set(name, { name, validation_context: { trusted_ca: { inline_string: bundle } } });
  }
  return out;
}
