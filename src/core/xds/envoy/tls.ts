// TLS as Envoy's transport sockets carry it: a listener's certificate and its client-certificate
// validation (Gateway spec.tls.frontend), and the TLS a backend's BackendTLSPolicy originates.
// Private keys never travel in these resources: certificates are named SDS secrets (./secrets.ts),
// sent only on streams of the Gateway's own proxy tokens, as snapshots carry their data.
import type { CompiledBackendTLS, CompiledListenerTLS, CompiledObjectRef } from '../../compile';
import { backendCaSecretName, certificateSecretName } from './names';
import { ADS, T, type Msg } from './types';

/** Where Debian-family hosts keep the system's trusted CAs (wellKnownCACertificates: System). */
export const SYSTEM_CA_FILE = '/etc/ssl/certs/ca-certificates.crt';

const sds = (name: string) => ({ name, sds_config: ADS });

/**
 * The listener's first certificate (the reference proxy serves the first too), ALPN as the
 * reference HTTPS server offers it, and client validation: AllowValidOnly requires a certificate
 * that chains to the CA bundle; AllowInsecureFallback asks for one and lets any (or none) in.
 */
export function downstreamTls(tls: CompiledListenerTLS, alpn: string[] | undefined, validateClients: boolean): Msg {
  const common: Msg = { tls_certificate_sds_secret_configs: [sds(certificateSecretName(tls.certificateRefs[0]))] };
  if (alpn) common.alpn_protocols = alpn;
  const ctx: Msg = { '@type': T.downstreamTls, common_tls_context: common };
  // frontend validation is an HTTPS listener's: the reference asks no client of a TLS listener for a certificate
  if (tls.caBundle && validateClients) {
    if (tls.clientValidationMode === 'AllowInsecureFallback') {
      common.validation_context = { trusted_ca: { inline_string: tls.caBundle }, trust_chain_verification: 'ACCEPT_UNTRUSTED' };
      ctx.require_client_certificate = false;
    } else {
      common.validation_context = { trusted_ca: { inline_string: tls.caBundle } };
      ctx.require_client_certificate = true;
    }
  }
  return ctx;
}

/** The policy's SNI and accepted names (its subjectAltNames, else a DNS name equal to the SNI), its CAs by SDS. */
export function upstreamTls(tls: CompiledBackendTLS, clientCert: CompiledObjectRef | undefined, alpn: string[] | undefined): Msg {
  const sans = tls.subjectAltNames.length
    ? tls.subjectAltNames.map((s) => ({ san_type: s.type === 'URI' ? 'URI' : 'DNS', matcher: { exact: s.value } }))
    : [{ san_type: 'DNS', matcher: { exact: tls.sni } }];
  const common: Msg = {};
  if (clientCert) common.tls_certificate_sds_secret_configs = [sds(certificateSecretName(clientCert))];
  if (tls.wellKnownCACertificates === 'System') {
    common.validation_context = { trusted_ca: { filename: SYSTEM_CA_FILE }, match_typed_subject_alt_names: sans };
  } else {
    common.combined_validation_context = {
      default_validation_context: { match_typed_subject_alt_names: sans },
      validation_context_sds_secret_config: sds(backendCaSecretName(tls.policy)),
    };
  }
  if (alpn) common.alpn_protocols = alpn;
  return { '@type': T.upstreamTls, sni: tls.sni, common_tls_context: common };
}
