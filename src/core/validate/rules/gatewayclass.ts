// CEL rules of GatewayClass (v1, v1beta1): controllerName is immutable (a transition rule, so only on
// update). And our own annotation choosing the class's ListenerSet status reasons takes only the
// values we know (status/listener-set-mode.ts), so that a typo is refused instead of ignored.
import type { FieldError } from '../types';
import { fail, isObj, type Obj } from '../cel';
import { mapKey, unsupported } from '../messages';
import { isListenerSetStatusMode, LISTENER_SET_STATUS_ANNOTATION, LISTENER_SET_STATUS_MODES } from '../../status/listener-set-mode';

export function gatewayClassRules(obj: Obj, errors: FieldError[], old?: Obj): void {
  const annotations = isObj(obj.metadata) && isObj(obj.metadata.annotations) ? obj.metadata.annotations : undefined;
  if (annotations && Object.hasOwn(annotations, LISTENER_SET_STATUS_ANNOTATION)) {
    const v = annotations[LISTENER_SET_STATUS_ANNOTATION];
    if (!isListenerSetStatusMode(v))
      errors.push({ path: mapKey('metadata.annotations', LISTENER_SET_STATUS_ANNOTATION), message: unsupported(v, LISTENER_SET_STATUS_MODES) });
  }
  if (!old || !isObj(old.spec) || !isObj(obj.spec)) return;
  if (old.spec.controllerName !== undefined && obj.spec.controllerName !== old.spec.controllerName) {
    fail(errors, 'spec.controllerName', 'string', 'field is immutable');
  }
}
