// The API server's wording of field errors (k8s.io/apimachinery field.Error.ErrorBody and the
// kube-openapi body-validation details), so that clients moving manifests between the two see the same words.
import type { FieldReason } from './types';

const MAX_SHOWN = 100;

/** A value as the API server prints it in `Invalid value: <v>` (strings quoted, long values cut). */
export function showValue(v: unknown): string {
  let s: string;
  if (typeof v === 'string') s = JSON.stringify(v.length > MAX_SHOWN ? v.slice(0, MAX_SHOWN) + '...' : v);
  else if (v === null) s = 'null';
  else if (typeof v === 'number' || typeof v === 'boolean') s = String(v);
  else if (Array.isArray(v)) s = v.length === 0 ? '[]' : `[${v.length} items]`;
  else if (typeof v === 'object') s = '"object"';
  else s = JSON.stringify(String(v));
  return s;
}

export const invalid = (v: unknown, detail: string) => `Invalid value: ${showValue(v)}: ${detail}`;
export const REQUIRED = 'Required value';
export const unsupported = (v: unknown, allowed: readonly unknown[]) =>
  `Unsupported value: ${showValue(v)}: supported values: ${allowed.map(showValue).join(', ')}`;
export const tooLong = (max: number) => `Too long: may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}`;
export const tooMany = (actual: number, max: number) =>
  `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`;
export const duplicate = (v: unknown) => `Duplicate value: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : showValue(v)}`;
export const forbidden = (detail: string) => `Forbidden: ${detail}`;
export const unknownField = (path: string) => `unknown field "${path}"`;
export const NOT_CHECKED =
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

/**
 * The reason of a message made by the builders above: as in k8s.io/apimachinery field.Error, where
 * the message body starts with the error type's words ("Required value", "Invalid value", ...), the
 * leading phrase names the type, and the type names the cause (metav1.CauseType).
 */
const REASON_BY_PHRASE: readonly [string, FieldReason][] = [
  ['Required value', 'FieldValueRequired'],
  ['Unsupported value', 'FieldValueNotSupported'],
  ['Duplicate value', 'FieldValueDuplicate'],
  ['Too long', 'FieldValueTooLong'],
  ['Too many', 'FieldValueTooMany'],
  ['Forbidden', 'FieldValueForbidden'],
  ['Not found', 'FieldValueNotFound'],
  ['Internal error', 'InternalError'],
  ['internal validation error', 'InternalError'],
  // a field the schema does not have: its name is not one the kind supports
  ['unknown field', 'FieldValueNotSupported'],
  ['Invalid value', 'FieldValueInvalid'],
];

/** Any other wording (a YAML document that cannot be read, a token request's field) is an invalid value. */
export function fieldReason(message: string): FieldReason {
  for (const [phrase, reason] of REASON_BY_PHRASE) if (message.startsWith(phrase)) return reason;
  return 'FieldValueInvalid';
}

/** The errors, each with its reason (kept when set, else read off its message). */
export function withReasons<E extends { message: string; reason?: FieldReason }>(errors: readonly E[]): (E & { reason: FieldReason })[] {
  return errors.map((e) => (e.reason ? (e as E & { reason: FieldReason }) : { ...e, reason: fieldReason(e.message) }));
}

/** Kubernetes field-path helpers. */
export const child = (path: string, key: string) => (path ? `${path}.${key}` : key);
export const index = (path: string, i: number) => `${path}[${i}]`;
export const mapKey = (path: string, key: string) => `${path}[${key}]`;

/** JSON type name as kube-openapi reports it (`must be of type integer: "string"`). */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}
