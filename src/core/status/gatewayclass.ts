// GatewayClass status. Only classes whose controllerName is ours are ever written. A class is
// accepted unless it carries a parametersRef: Switchyard takes no GatewayClass parameters, so any
// reference is one it cannot resolve (InvalidParameters). SupportedVersion is always True: this
// service is the API server, so the stored versions are by construction the ones it supports. A class
// may choose its Gateways' ListenerSet status reasons with an annotation (listener-set-mode.ts); the
// Accepted message says when it does.
import type { Condition, GatewayClass, GatewayClassStatus } from '../model/objects';
import type { TranslateOptions } from '../model/world';
import { draft, mergeConditions, type ConditionDraft } from './conditions';
import { ConditionType, GatewayClassReason, OWNED_CONDITION_TYPES } from './reasons';
import { supportedFeaturesStatus } from './features';
import { LISTENER_SET_STATUS_ANNOTATION, listenerSetStatusMode } from './listener-set-mode';

export type { GatewayClassStatus };

export interface GatewayClassVerdict {
  accepted: boolean;
  reason: string;
  message: string;
}

export function isOurClass(gc: GatewayClass | undefined, controllerName: string): boolean {
  return !!gc && gc.spec?.controllerName === controllerName;
}

export function gatewayClassVerdict(gc: GatewayClass): GatewayClassVerdict {
  const ref = gc.spec?.parametersRef;
  if (ref) {
    const where = ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
    return {
      accepted: false, reason: GatewayClassReason.InvalidParameters,
      message: `parametersRef ${ref.kind ?? '?'} "${where}"${ref.group ? ` (group ${ref.group})` : ''} cannot be resolved: this controller takes no GatewayClass parameters`,
    };
  }
  const pr4815 = listenerSetStatusMode(gc) === 'pr4815'
    ? `; its Gateways write ListenerSet status as Gateway API pull request #4815 defines it (${LISTENER_SET_STATUS_ANNOTATION}: pr4815)` : '';
  return { accepted: true, reason: GatewayClassReason.Accepted, message: `The GatewayClass is accepted by this controller${pr4815}` };
}

/**
 * The status to write on a GatewayClass, or undefined when the class belongs to another controller
 * (its status is not ours to touch). `previous` is the class's current status, by default gc.status.
 */
export function gatewayClassStatus(
  gc: GatewayClass,
  opts: TranslateOptions & { supportedFeatures?: readonly string[] },
  previous?: { conditions?: Condition[] },
): GatewayClassStatus | undefined {
  if (!isOurClass(gc, opts.controllerName)) return undefined;
  const v = gatewayClassVerdict(gc);
  const drafts: ConditionDraft[] = [
    draft(ConditionType.Accepted, v.accepted, v.reason, v.message),
    draft(ConditionType.SupportedVersion, true, GatewayClassReason.SupportedVersion,
      'The Gateway API versions served by this control plane are supported'),
  ];
  const conditions = mergeConditions(drafts, (previous ?? gc.status)?.conditions, {
    generation: gc.metadata.generation, now: opts.now, owned: OWNED_CONDITION_TYPES.gatewayClass,
  });
  return { conditions, supportedFeatures: supportedFeaturesStatus(opts.supportedFeatures) };
}
