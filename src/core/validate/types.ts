/** One validation problem: `path` in Kubernetes notation (`spec.rules[0].matches[0].path.value`). */
export interface FieldError {
  path: string;
  message: string;
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
