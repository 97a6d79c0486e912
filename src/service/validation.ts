// The one entry to validation for every write path (REST and apply): the pure core's validator.
import type { K8sObject } from '../core/model/objects';
import { KINDS } from '../core/model/kinds';
import { compileSchema, validateObject, type FieldError } from '../core/validate';

export interface ValidationResult {
  object: K8sObject;
  errors: FieldError[];
}

export function validate(obj: K8sObject, old?: K8sObject): ValidationResult {
  const { object, errors } = validateObject(obj, old ? { old } : {});
  return { object, errors };
}

/**
 * Compiles every kind's validator, one schema per turn of the event loop. Compiled on first use, a
 * kind's first write waited for it (HTTPRoute's some 150 ms, every kind's 320 ms together), and the
 * first writes of a sync waited behind that one.
 */
export async function warmValidation(): Promise<void> {
  for (const schema of new Set(KINDS.flatMap((k) => Object.values(k.versions)))) {
    await new Promise((resolve) => setImmediate(resolve));
    compileSchema(schema);
  }
}
