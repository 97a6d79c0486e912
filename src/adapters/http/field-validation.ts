// The write query parameters both API surfaces share: dryRun, and fieldValidation as it applies to
// keys a JSON body holds twice (kube-apiserver's field validation: Strict refuses the body naming
// each field, Warn answers with a Warning header per field, Ignore says nothing).
import type { Request, Response } from 'express';
import { HttpError } from './problem';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

const DIRECTIVES: readonly string[] = ['Strict', 'Warn', 'Ignore'];

/** The fieldValidation of a request: Warn when absent, as on kube-apiserver. */
export function fieldValidationOf(req: Request): FieldValidation {
  const fv = req.query.fieldValidation ?? 'Warn';
  if (typeof fv !== 'string' || !DIRECTIVES.includes(fv))
    throw new HttpError(400, `fieldValidation: Unsupported value: ${JSON.stringify(fv)}: supported values: "Ignore", "Warn", "Strict"`, [{ path: 'fieldValidation', message: `Unsupported value: ${JSON.stringify(fv)}`, reason: 'FieldValueNotSupported' }]);
  return fv as FieldValidation;
}

/**
 * Whether the request is a dry run. `accepted`: the values the path documents (the Kubernetes
 * paths take "All"; this API's own paths "All" and "true", as its apply does). Any other is a 400
 * naming it: a write meant as a dry run must never happen for real.
 */
export function dryRunOf(req: Request, accepted: readonly string[]): boolean {
  const raw = req.query.dryRun;
  if (raw === undefined) return false;
  const values = Array.isArray(raw) ? raw : [raw];
  const bad = values.find((v) => typeof v !== 'string' || !accepted.includes(v));
  if (bad !== undefined || values.length === 0)
    throw new HttpError(400, `dryRun: Unsupported value: ${JSON.stringify(bad ?? '')}: supported values: ${accepted.map((a) => `"${a}"`).join(', ')}`, [{ path: 'dryRun', message: `Unsupported value: ${JSON.stringify(bad ?? '')}`, reason: 'FieldValueNotSupported' }]);
  return true;
}

/** What kube-apiserver says of a duplicated field, in its strict decoding error and in its warning. */
export function duplicateFieldMessage(path: string): string {
  return `duplicate field ${JSON.stringify(path)}`;
}

/** Refuses (Strict) or warns about (Warn) the duplicated keys of a body; the warnings are returned for the answer. */
export function checkDuplicates(duplicates: readonly string[] | undefined, fv: FieldValidation): string[] {
  if (!duplicates || duplicates.length === 0 || fv === 'Ignore') return [];
  const messages = duplicates.map(duplicateFieldMessage);
  if (fv === 'Strict')
    throw new HttpError(400, `strict decoding error: ${messages.join(', ')}`, duplicates.map((path) => ({ path, message: duplicateFieldMessage(path), reason: 'FieldValueDuplicate' })));
  return messages;
}

/**
 * Warnings as kube-apiserver sends them: one `299 - "<text>"` per warning, which kubectl prints.
 * A header holds printable ASCII only: anything else in a field's name becomes "?".
 */
export function setWarnings(res: Response, warnings: readonly string[]): void {
  const quote = (w: string) => `299 - "${w.slice(0, 512).replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, (c) => `\\${c}`)}"`;
  if (warnings.length) res.setHeader('Warning', warnings.map(quote).join(', '));
}
