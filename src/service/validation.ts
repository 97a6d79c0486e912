// The one entry to validation for every write path (REST and apply): the pure core's validator.
import type { K8sObject } from '../core/model/objects';
import { validateObject, type FieldError } from '../core/validate';

export interface ValidationResult {
  object: K8sObject;
  errors: FieldError[];
}

export function validate(obj: K8sObject, old?: K8sObject): ValidationResult {
  const { object, errors } = validateObject(obj, old ? { old } : {});
  return { object, errors };
}
