// Frontend client-certificate validation (spec.tls.frontend): the CA bundles an HTTPS listener
// validates client certificates against. A perPort entry for the listener's port replaces the
// default. Each caCertificateRef must be a core ConfigMap (else InvalidCACertificateKind), allowed
// (a ReferenceGrant for other namespaces, else RefNotPermitted), existing and holding PEM
// certificates under "ca.crt" (else InvalidCACertificateRef).
import type { World } from '../model/world';
import type { ConfigMap, Gateway, Listener } from '../model/objects';
import { referenceAllowed } from './grants';
import { GATEWAY_GROUP, indexWorld, key, refName } from './lookup';
import { hasCertificate } from './pem';
import { ListenerReason } from '../status/reasons';

export interface CaRefResult {
  path: string;
  group: string;
  kind: string;
  namespace: string;
  name: string;
  ok: boolean;
  /** InvalidCACertificateRef | InvalidCACertificateKind | RefNotPermitted */
  reason?: string;
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

/** The client validation that applies to a listener, or undefined (not HTTPS, or none configured). */
export function resolveFrontendValidation(world: World, gateway: Gateway, listener: Listener): FrontendValidation | undefined {
  if (listener?.protocol !== 'HTTPS') return undefined;
  const frontend = gateway.spec?.tls?.frontend;
  if (!frontend) return undefined;
  const perPort: any[] = frontend.perPort ?? [];
  const pi = perPort.findIndex((p) => p?.port === listener.port);
  const source = pi >= 0 ? `spec.tls.frontend.perPort[${pi}].tls.validation` : 'spec.tls.frontend.default.validation';
  const validation = pi >= 0 ? perPort[pi]?.tls?.validation : frontend.default?.validation;
  if (!validation) return undefined;
  const refs = (validation.caCertificateRefs ?? []).map((ref: any, i: number) =>
    resolveCaRef(world, gateway, ref, `${source}.caCertificateRefs[${i}]`));
  return { source, mode: validation.mode ?? 'AllowValidOnly', refs };
}

export function resolveCaRef(world: World, gateway: Gateway, ref: any, path: string): CaRefResult {
  const group: string = ref?.group ?? '';
  const kind: string = ref?.kind ?? '';
  const gwNs = gateway.metadata.namespace ?? '';
  const namespace: string = ref?.namespace ?? gwNs;
  const name: string = ref?.name ?? '';
  const base = { path, group, kind, namespace, name };
  const what = `${kind || '(no kind)'} "${refName(namespace, name)}"${group ? ` (group ${group})` : ''}`;
  if (!referenceAllowed(world, { group: GATEWAY_GROUP, kind: 'Gateway', namespace: gwNs }, { group, kind, namespace, name }))
    return { ...base, ok: false, reason: ListenerReason.RefNotPermitted,
      message: `CA certificate ${what} is in another namespace and no ReferenceGrant in "${namespace}" allows references from Gateways in "${gwNs}"` };
  if (group !== '' || kind !== 'ConfigMap')
    return { ...base, ok: false, reason: ListenerReason.InvalidCACertificateKind,
      message: `CA certificate ${what} is not supported: CA bundles must be core ConfigMaps` };
  const cm = indexWorld(world).configMaps.get(key(namespace, name));
  if (!cm) return { ...base, ok: false, reason: ListenerReason.InvalidCACertificateRef, message: `ConfigMap "${refName(namespace, name)}" does not exist` };
  const bundle = (cm as any).data?.['ca.crt'];
  if (typeof bundle !== 'string')
    return { ...base, ok: false, reason: ListenerReason.InvalidCACertificateRef, message: `ConfigMap "${refName(namespace, name)}" has no key ca.crt` };
  if (!hasCertificate(bundle))
    return { ...base, ok: false, reason: ListenerReason.InvalidCACertificateRef, message: `ConfigMap "${refName(namespace, name)}" has a ca.crt that holds no PEM certificate` };
  return { ...base, ok: true, message: `ConfigMap "${refName(namespace, name)}" holds a CA bundle`, configMap: cm, bundle };
}
