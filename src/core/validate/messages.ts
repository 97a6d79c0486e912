// The API server's wording of field errors (k8s.io/apimachinery field.Error.ErrorBody and the
// kube-openapi body-validation details), so that clients moving manifests between the two see the same words.

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
