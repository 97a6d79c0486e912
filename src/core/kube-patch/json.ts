// Plain JSON values: the shapes every engine walks, and a deep copy whose keys are defined, never
// assigned, so that a "__proto__" key stays an ordinary property. Equality and canonical JSON are
// the ones of src/core/objects/canonical.ts.
export { canonicalJson, deepEqual } from '../objects/canonical';

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

// Only "__proto__" has a setter on a plain object (Object.prototype's), so only it needs
// defineProperty, which is slow and turns the object into a dictionary.
export function define(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

export const has = (obj: JsonObject, key: string): boolean => Object.prototype.hasOwnProperty.call(obj, key);

export function clone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(clone) as T;
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) define(out, k, clone(v[k]));
    return out as T;
  }
  return v;
}
