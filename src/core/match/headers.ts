// Header maps keyed by lower-case name (names compare case-insensitively), and the
// RequestHeaderModifier / ResponseHeaderModifier semantics on them.

export type HeaderMap = Record<string, string>;

export interface HeaderModifier {
  set: { name: string; value: string }[];
  add: { name: string; value: string }[];
  remove: string[];
}

export function lowerHeaders(headers: Record<string, string> | undefined | null): HeaderMap {
  const out: HeaderMap = {};
  if (!headers) return out;
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    // a repeated header (different spellings of one name) is joined as a proxy would
    out[key] = key in out ? `${out[key]},${String(value)}` : String(value);
  }
  return out;
}

/** set overwrites, add appends with ",", remove deletes; in that order, as the spec's examples read. */
export function applyHeaderModifier(headers: HeaderMap, mod: HeaderModifier): HeaderMap {
  const out: HeaderMap = { ...headers };
  for (const { name, value } of mod.set) out[name.toLowerCase()] = value;
  for (const { name, value } of mod.add) {
    const key = name.toLowerCase();
    out[key] = key in out && out[key] !== '' ? `${out[key]},${value}` : value;
  }
  for (const name of mod.remove) delete out[name.toLowerCase()];
  return out;
}

/** Same keys, sorted, so that answers are stable. */
export function sortedHeaders(headers: HeaderMap): HeaderMap {
  const out: HeaderMap = {};
  for (const k of Object.keys(headers).sort()) out[k] = headers[k];
  return out;
}
