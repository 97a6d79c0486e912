// The answer of every patch engine: the patched object, or a refusal shaped as kube-apiserver's
// Status (the HTTP code, the StatusReason and the causes naming each field).

export interface PatchCause {
  field: string;
  message: string;
  reason?: string;
}

export type PatchResult =
  | { ok: true; object: object }
  | { ok: false; status: 409 | 422 | 400 | 415; reason: string; message: string; causes?: PatchCause[] };

export type PatchFailure = Extract<PatchResult, { ok: false }>;

export const badRequest = (message: string): PatchFailure => ({ ok: false, status: 400, reason: 'BadRequest', message });
export const invalid = (message: string, causes?: PatchCause[]): PatchFailure =>
  ({ ok: false, status: 422, reason: 'Invalid', message, ...(causes ? { causes } : {}) });

/** Thrown inside an engine to stop at the first problem; applyPatch turns it into its failure. */
export class PatchError extends Error {
  constructor(readonly failure: PatchFailure) {
    super(failure.message);
  }
}
