// RFC 7386 JSON merge patch. Keys are defined, never assigned, so that a "__proto__" key in a
// hostile patch becomes an ordinary property (which validation then rejects) instead of a prototype.
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> =
    target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as object) } : {};
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(base)) define(out, key, base[key]);
  for (const key of Object.keys(patch)) {
    const value = (patch as Record<string, unknown>)[key];
    if (value === null) delete out[key];
    else define(out, key, mergePatch(Object.prototype.hasOwnProperty.call(out, key) ? out[key] : undefined, value));
  }
  return out;
}

function define(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
