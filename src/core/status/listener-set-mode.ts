// Which ListenerSet status a GatewayClass's Gateways write, chosen per class with an annotation.
//
// Gateway API's released ListenerSet conformance tests and the open pull request #4815 ("refine
// ListenerSet status semantics and add Conflicted reason", head 365f079b) want different reasons
// for the same objects: a ListenerSet listener that conflicts with one before it is
// Accepted=False with the conflict's own reason (HostnameConflict, ProtocolConflict) in the
// released tests, and with the new ListenerEntry reason Conflicted in #4815. One status cannot
// satisfy both, so the released reading is the default and a class opts into #4815's:
//
//   metadata.annotations["switchyard.dev/listener-set-status"]: released (default) | pr4815
//
// With pr4815, a ListenerSet's listeners and conditions follow apis/v1/listenerset_types.go of
// that pull request: a conflicted listener is Accepted=False/Conflicted and Programmed=False/
// Invalid (Conflicted=True keeps the conflict's reason); a ListenerSet that is not programmed is
// Programmed=False with Invalid or ParentNotProgrammed (NotAllowed and ListenersNotValid are
// Accepted reasons only). The Gateway's own listeners are the same in both.
import type { GatewayClass } from '../model/objects';

export const LISTENER_SET_STATUS_ANNOTATION = 'switchyard.dev/listener-set-status';

export const LISTENER_SET_STATUS_MODES = ['released', 'pr4815'] as const;
export type ListenerSetStatusMode = (typeof LISTENER_SET_STATUS_MODES)[number];

export const isListenerSetStatusMode = (v: unknown): v is ListenerSetStatusMode =>
  (LISTENER_SET_STATUS_MODES as readonly unknown[]).includes(v);

/** The class's choice; `released` when it makes none (writes with any other value are refused). */
export function listenerSetStatusMode(gc: Pick<GatewayClass, 'metadata'> | undefined): ListenerSetStatusMode {
  const v = gc?.metadata?.annotations?.[LISTENER_SET_STATUS_ANNOTATION];
  return isListenerSetStatusMode(v) ? v : 'released';
}
