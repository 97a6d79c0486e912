// Frontend client-certificate validation (spec.tls.frontend): the CA bundles an HTTPS listener
// validates client certificates against. A perPort entry for the listener's port replaces the
// default. Each caCertificateRef must be a core ConfigMap (else InvalidCACertificateKind), allowed
// (a ReferenceGrant for other namespaces, else RefNotPermitted), existing and holding PEM
// certificates under "ca.crt" (else InvalidCACertificateRef).
import type { ConfigMap, Gateway, Listener, ObjectReference, TLSConfig } from '../model/objects';
import { referenceAllowed } from './grants';
import { GATEWAY_GROUP, key, refName, type WorldView } from './lookup';
import { hasCertificate } from './pem';
import { ListenerReason } from '../status/reasons';

export interface CaRefResult {
  path: string;
  group: string;
  kind: string;
  namespace: string;
  name: string;
  ok: boolean;
  reason?: typeof ListenerReason.InvalidCACertificateRef | typeof ListenerReason.InvalidCACertificateKind | typeof ListenerReason.RefNotPermitted;
  message: string;
  configMap?: ConfigMap;
  bundle?: string;
}

export interface FrontendValidation {
  /** where the configuration came from: spec.tls.frontend.default or .perPort[i] */
  source: string;
  mode: string;
  refs: CaRefResult[];
}

type ClientValidation = NonNullable<TLSConfig['validation']>;

/**
 * The client validation configured for a port: the perPort entry for it when there is one (even
 * one without validation: it replaces the default), else the default. Undefined when none applies.
 */
export function frontendValidationFor(gateway: Gateway, port: number): { source: string; validation: ClientValidation } | undefined {
  const frontend = gateway.spec?.tls?.frontend;
  if (!frontend) return undefined;
  const perPort = frontend.perPort ?? [];
  const pi = perPort.findIndex((p) => p?.port === port);
  const validation = pi >= 0 ? perPort[pi]?.tls?.validation : frontend.default?.validation;
  if (!validation) return undefined;
  const source = pi >= 0 ? `spec.tls.frontend.perPort[${pi}].tls.validation` : 'spec.tls.frontend.default.validation';
  return { source, validation };
}

/** The client validation that applies to a listener, or undefined (not HTTPS, or none configured). */
export function resolveFrontendValidation(view: WorldView, gateway: Gateway, listener: Listener): FrontendValidation | undefined {
  if (listener?.protocol !== 'HTTPS') return undefined;
  const chosen = frontendValidationFor(gateway, listener.port);
  if (!chosen) return undefined;
  const { source, validation } = chosen;
  const refs = (validation.caCertificateRefs ?? []).map((ref, i) =>
    resolveCaRef(view, gateway, ref, `${source}.caCertificateRefs[${i}]`));
  return { source, mode: validation.mode ?? 'AllowValidOnly', refs };
}

export function resolveCaRef(view: WorldView, gateway: Gateway, ref: Partial<ObjectReference> | undefined, path: string): CaRefResult {
  const group = ref?.group ?? '';
  const kind = ref?.kind ?? '';
  const gwNs = gateway.metadata.namespace ?? '';
  const namespace = ref?.namespace ?? gwNs;
  const name = ref?.name ?? '';
  const base = { path, group, kind, namespace, name };
  const what = `${kind || '(no kind)'} "${refName(namespace, name)}"${group ? ` (group ${group})` : ''}`;
  if (!referenceAllowed(view, { group: GATEWAY_GROUP, kind: 'Gateway', namespace: gwNs }, { group, kind, namespace, name }))
    return { ...base, ok: false, reason: ListenerReason.RefNotPermitted,
      message: `CA certificate ${what} is in another namespace and no ReferenceGrant in "${namespace}" allows references from Gateways in "${gwNs}"` };
  if (group !== '' || kind !== 'ConfigMap')
    return { ...base, ok: false, reason: ListenerReason.InvalidCACertificateKind,
      message: `CA certificate ${what} is not supported: CA bundles must be core ConfigMaps` };
  const cm = view.index.configMaps.get(key(namespace, name));
  if (!cm) return { ...base, ok: false, reason: ListenerReason.InvalidCACertificateRef, message: `ConfigMap "${refName(namespace, name)}" does not exist` };
  const bundle = cm.data?.['ca.crt'];
  if (typeof bundle !== 'string')
    return { ...base, ok: false, reason: ListenerReason.InvalidCACertificateRef, message: `ConfigMap "${refName(namespace, name)}" has no key ca.crt` };
  if (!hasCertificate(bundle))
    return { ...base, ok: false, reason: ListenerReason.InvalidCACertificateRef, message: `ConfigMap "${refName(namespace, name)}" has a ca.crt that holds no PEM certificate` };
  return { ...base, ok: true, message: `ConfigMap "${refName(namespace, name)}" holds a CA bundle`, configMap: cm, bundle };
}
