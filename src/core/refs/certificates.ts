// Secret references of a Gateway: listener certificateRefs and the backend client certificate
// (spec.tls.backend.clientCertificateRef), and the certificateRefs of ListenerSet listeners, which are
// the ListenerSet's own: a reference into another namespace needs a ReferenceGrant from the
// referrer's kind (Gateway or ListenerSet) and namespace, and is RefNotPermitted without one whatever it points
// at. An allowed reference is invalid when it is not a core Secret, when the Secret does not exist,
// or when it is malformed: not of type kubernetes.io/tls, tls.crt not X.509 certificates, tls.key not a
// private key, or a key that does not belong to the certificate.
import type { Gateway, Listener, ListenerSet, Secret, SecretObjectReference } from '../model/objects';
import { referenceAllowed } from './grants';
import { GATEWAY_GROUP, key, refName, type WorldView } from './lookup';
import { decodeBase64, decodeUtf8, hasCertificate, hasPrivateKey } from './pem';
import { keyPairProblem } from './key-pair';

/** Not permitted (no ReferenceGrant), or permitted but unusable; each caller names its own reason. */
type SecretRefProblem = 'notPermitted' | 'invalid';

export interface SecretRefResult {
  path: string;
  group: string;
  kind: string;
  namespace: string;
  name: string;
  ok: boolean;
  problem?: SecretRefProblem;
  message: string;
  secret?: Secret;
}

/** `owner`: the Gateway, or the ListenerSet whose listener names the Secret (grants must admit that kind). */
function resolveSecretRef(view: WorldView, owner: Gateway | ListenerSet, ref: Partial<SecretObjectReference> | undefined, path: string): SecretRefResult {
  const group = ref?.group ?? '';
  const kind = ref?.kind ?? 'Secret';
  const ownerKind = owner.kind === 'ListenerSet' ? 'ListenerSet' : 'Gateway';
  const gwNs = owner.metadata.namespace ?? '';
  const namespace = ref?.namespace ?? gwNs;
  const name = ref?.name ?? '';
  const base = { path, group, kind, namespace, name };
  const what = `${kind} "${refName(namespace, name)}"${group ? ` (group ${group})` : ''}`;
  if (!referenceAllowed(view, { group: GATEWAY_GROUP, kind: ownerKind, namespace: gwNs }, { group, kind, namespace, name }))
    return { ...base, ok: false, problem: 'notPermitted',
      message: `${what} is in another namespace and no ReferenceGrant in "${namespace}" allows references from ${ownerKind}s in "${gwNs}"` };
  if (group !== '' || kind !== 'Secret')
    return { ...base, ok: false, problem: 'invalid', message: `${what} is not supported: certificates must be core Secrets` };
  const secret = view.index.secrets.get(key(namespace, name));
  if (!secret) return { ...base, ok: false, problem: 'invalid', message: `Secret "${refName(namespace, name)}" does not exist` };
  const malformed = tlsSecretProblem(secret);
  if (malformed) return { ...base, ok: false, problem: 'invalid', message: `Secret "${refName(namespace, name)}" ${malformed}` };
  return { ...base, ok: true, message: `Secret "${refName(namespace, name)}" holds a certificate and key`, secret };
}

/** Why a Secret cannot serve as a TLS certificate, or undefined when it can. */
export function tlsSecretProblem(secret: Secret): string | undefined {
  if (secret.type !== 'kubernetes.io/tls') return `is of type "${secret.type ?? 'Opaque'}", not kubernetes.io/tls`;
  const crt = secretValue(secret, 'tls.crt');
  const keyText = secretValue(secret, 'tls.key');
  if (crt === undefined) return 'has no tls.crt';
  if (keyText === undefined) return 'has no tls.key';
  if (!hasCertificate(crt)) return 'has a tls.crt that holds no PEM certificate';
  if (!hasPrivateKey(keyText)) return 'has a tls.key that holds no PEM private key';
  return keyPairProblem(crt, keyText);
}

/** A Secret value as text: data is base64 (as Kubernetes stores it), stringData is plain. */
export function secretValue(secret: Secret, field: string): string | undefined {
  const data = secret.data?.[field];
  if (typeof data === 'string') {
    const bytes = decodeBase64(data);
    return bytes ? decodeUtf8(bytes) : '';
  }
  const plain = secret.stringData?.[field];
  return typeof plain === 'string' ? plain : undefined;
}

/** The certificateRefs of a listener that terminates TLS, resolved in spec order. */
export function resolveListenerCertificates(view: WorldView, owner: Gateway | ListenerSet, listener: Listener, listenerIndex: number): SecretRefResult[] {
  return (listener?.tls?.certificateRefs ?? []).map((ref, i) =>
    resolveSecretRef(view, owner, ref, `spec.listeners[${listenerIndex}].tls.certificateRefs[${i}]`));
}

/** spec.tls.backend.clientCertificateRef, resolved; undefined when the Gateway has none. */
export function resolveClientCertificate(view: WorldView, gateway: Gateway): SecretRefResult | undefined {
  const ref = gateway.spec?.tls?.backend?.clientCertificateRef;
  return ref ? resolveSecretRef(view, gateway, ref, 'spec.tls.backend.clientCertificateRef') : undefined;
}
