// Names of the resources an Envoy node is sent. The listener and route configuration names carry
// the Gateway, so that they read in Envoy's admin output; cluster names are the proxyless ones
// (../names.ts) plus a suffix where one Service port is reached two ways.
import type { CompiledGatewayRef, CompiledListener, CompiledObjectRef } from '../../compile';

/** One Envoy listener per port and transport: "<ns>/<gw>/<port>" (TCP) or "<ns>/<gw>/<port>/udp". */
export const envoyListenerName = (gw: CompiledGatewayRef, port: number, udp = false): string =>
  `${gw.namespace}/${gw.name}/${port}${udp ? '/udp' : ''}`;

/** A Gateway listener inside its port: its name, prefixed by its ListenerSet's when it has one. */
export const listenerId = (l: CompiledListener): string =>
  l.listenerSet ? `${l.listenerSet.namespace}/${l.listenerSet.name}/${l.name}` : l.name;

/** The route configuration of an HTTP port ("<ns>/<gw>/<port>") or of one HTTPS listener's filter chain. */
export const routeConfigName = (gw: CompiledGatewayRef, port: number, https?: CompiledListener): string =>
  `${envoyListenerName(gw, port)}${https ? `/${listenerId(https)}` : ''}`;

/** A kubernetes.io/tls Secret as an SDS tls_certificate: "<ns>/<name>". */
export const certificateSecretName = (ref: Pick<CompiledObjectRef, 'namespace' | 'name'>): string => `${ref.namespace}/${ref.name}`;

/** The CA bundle a BackendTLSPolicy validates with, as an SDS validation_context. */
export const backendCaSecretName = (policy: Pick<CompiledObjectRef, 'namespace' | 'name'>): string =>
  `backendtlspolicy/${policy.namespace}/${policy.name}/ca`;
