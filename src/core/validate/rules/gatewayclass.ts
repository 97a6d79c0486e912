// CEL rules of GatewayClass (v1, v1beta1): controllerName is immutable (a transition rule, so only on update).
import type { FieldError } from '../types';
import { fail, isObj, type Obj } from '../cel';

export function gatewayClassRules(obj: Obj, errors: FieldError[], old?: Obj): void {
  if (!old || !isObj(old.spec) || !isObj(obj.spec)) return;
  if (old.spec.controllerName !== undefined && obj.spec.controllerName !== old.spec.controllerName) {
    fail(errors, 'spec.controllerName', 'string', 'field is immutable');
  }
}
