import type { components } from '../../generated/api';

/** Kubernetes' `causes[].reason` of a field error (FieldValueRequired, FieldValueInvalid, ...). */
export type FieldReason = components['schemas']['FieldReason'];

/**
 * One validation problem: `path` in Kubernetes notation (`spec.rules[0].matches[0].path.value`).
 * `reason` is set where the check knows it (the schema keyword, a CEL rule); otherwise it is read off
 * the message's leading phrase (`withReasons`), which the message builders in messages.ts write.
 */
export interface FieldError {
  path: string;
  message: string;
  reason?: FieldReason;
}

export interface ValidateOptions {
  /** the stored object being replaced (update-time rules such as GatewayClass controllerName immutability) */
  old?: object;
  /**
   * `status` is the control plane's alone: by default what a client sends is dropped from the result and
   * not validated. `keepStatus: true` keeps, defaults and validates it (for the control plane's own writes).
   */
  keepStatus?: boolean;
}

export interface ValidateResult {
  /** a defaulted deep copy of the input (also when there are errors, as far as it could be defaulted) */
  // any: the copy's shape is the input's kind's, known to the caller, not to this signature
  object: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  errors: FieldError[];
}
