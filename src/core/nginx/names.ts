// Names in the rendered configuration: stable for the same input (an unchanged part keeps its file
// and its names), readable (the Service and port show in an upstream's name), and unique (a short
// digest of the full key, since two keys can sanitize alike).
import crypto from 'node:crypto';

export function digest(s: string, n = 12): string {
  return crypto.createHash('sha256').update(s).digest('hex').slice(0, n);
}

function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9]+/g, '_').slice(0, 40);
}

/** The upstream of a Service port; `copies` > 1 lists each endpoint that many times (retries on one endpoint). */
export function upstreamName(b: { namespace: string; name: string; port?: number }, copies = 1): string {
  const key = `${b.namespace}/${b.name}:${b.port ?? ''}${copies > 1 ? `x${copies}` : ''}`;
  return `u_${slug(b.namespace)}__${slug(b.name)}_${b.port ?? 0}${copies > 1 ? `_x${copies}` : ''}_${digest(key, 6)}`;
}

/** A request header's variable, set by the dispatch and sent by the location. */
export function headerVar(name: string): string {
  return `sy_rq_${slug(name.toLowerCase())}_${digest(name.toLowerCase(), 6)}`;
}

/**
 * nginx string literal: double-quoted, with " and \ escaped. Only names go here (hostnames, server
 * names): values a client could shape, or that may hold "$", travel to nginx through njs variables.
 */
export function q(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function base64Text(b64: string | undefined): string | undefined {
  if (!b64) return undefined;
  try {
    return atob(b64);
  } catch {
    return undefined;
  }
}
