// The one entry to validation for every write path (REST and apply).
import type { K8sObject } from '../core/model/objects';
import type { FieldError } from '../adapters/http/problem';

export interface ValidationResult {
  object: K8sObject;
  errors: FieldError[];
}

// TEMPORARY passthrough until src/core/validate lands.
export function validate(obj: K8sObject, _old?: K8sObject): ValidationResult {
  const errors: FieldError[] = [];
  if (typeof obj.metadata?.name !== 'string' || !obj.metadata.name) errors.push({ path: 'metadata.name', message: 'Required value' });
  return { object: structuredClone(obj), errors };
}
