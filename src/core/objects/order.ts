// JSONB stores keys in its own order; objects are shown in the Kubernetes order people read.
const TOP = ['apiVersion', 'kind', 'metadata', 'type', 'spec', 'data', 'stringData', 'binaryData', 'status'];
const META = ['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'labels', 'annotations'];

function ordered<T extends Record<string, unknown>>(obj: T, first: string[]): T {
  const out: Record<string, unknown> = {};
  for (const k of first) if (k in obj) out[k] = obj[k];
  for (const k of Object.keys(obj)) if (!(k in out)) Object.defineProperty(out, k, { value: obj[k], enumerable: true, writable: true, configurable: true });
  return out as T;
}

export function inReadingOrder<T extends { metadata?: unknown }>(obj: T): T {
  if (!obj || typeof obj !== 'object') return obj;
  const top = ordered(obj as Record<string, unknown>, TOP);
  if (top.metadata && typeof top.metadata === 'object') top.metadata = ordered(top.metadata as Record<string, unknown>, META);
  return top as T;
}
