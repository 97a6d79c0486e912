// Cookie session persistence (Gateway API sessionPersistence, type Cookie): the rule's settings as
// the table carries them, and the session cookie's value. The value names the backend and endpoint
// a session is kept on and when it began and was last used, so that any proxy of the Gateway (and
// resolve) can resume it without shared state; it is not secret (it names no more than a response's
// timing would), and a forged value can only pick a backend and endpoint the rule already has.
import type { CompiledBackend, CompiledSessionPersistence } from '../compile/types';
import { durationMillis } from '../compile/duration';

export interface SessionPersistenceSpec {
  type?: string;
  absoluteTimeout?: string;
  idleTimeout?: string;
  cookie?: { name?: string; path?: string; lifetimeType?: string };
}

/** The cookie name when the route gives none: one per route rule, so that rules do not share sessions. */
export function defaultCookieName(routeKey: string, ruleIndex: number): string {
  let h = 0x811c9dc5;
  for (const ch of `${routeKey}#${ruleIndex}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return `sy-session-${h.toString(16).padStart(8, '0')}`;
}

/** The table's form of a rule's sessionPersistence, or undefined when it keeps no cookie sessions. */
export function compileSessionPersistence(sp: SessionPersistenceSpec | undefined, routeKey: string, ruleIndex: number): CompiledSessionPersistence | undefined {
  if (!sp || typeof sp !== 'object' || (sp.type ?? 'Cookie') !== 'Cookie') return undefined;
  const out: CompiledSessionPersistence = {
    cookieName: sp.cookie?.name || defaultCookieName(routeKey, ruleIndex),
    path: sp.cookie?.path || '/',
    lifetime: sp.cookie?.lifetimeType === 'Permanent' ? 'Permanent' : 'Session',
  };
  const absolute = durationMillis(sp.absoluteTimeout);
  if (absolute !== undefined) out.absoluteTimeoutSeconds = Math.ceil(absolute / 1000);
  const idle = durationMillis(sp.idleTimeout);
  if (idle !== undefined) out.idleTimeoutSeconds = Math.ceil(idle / 1000);
  return out;
}

export interface SessionValue {
  /** "namespace/name:port" of the backend */
  backend: string;
  /** "address:port" of the endpoint, when the proxy chose one */
  endpoint?: string;
  /** seconds since the epoch: when the session began, and when it was last used */
  started: number;
  used: number;
}

export const backendKeyOf = (b: Pick<CompiledBackend, 'namespace' | 'name' | 'port'>): string => `${b.namespace}/${b.name}:${b.port ?? ''}`;

// base64url of UTF-8 with what both Node and a browser have (the console runs resolve too): no Buffer
function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(value: string): string {
  const b64 = value.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

export function encodeSession(v: SessionValue): string {
  return toBase64Url(JSON.stringify([v.backend, v.endpoint ?? '', v.started, v.used]));
}

export function decodeSession(value: string | undefined): SessionValue | undefined {
  if (!value || value.length > 1024) return undefined;
  try {
    const a = JSON.parse(fromBase64Url(value));
    if (!Array.isArray(a) || typeof a[0] !== 'string' || typeof a[1] !== 'string' || !Number.isInteger(a[2]) || !Number.isInteger(a[3])) return undefined;
    return { backend: a[0], ...(a[1] ? { endpoint: a[1] } : {}), started: a[2], used: a[3] };
  } catch {
    return undefined;
  }
}

/** The value of cookie `name` in a Cookie header (or gRPC cookie metadata; several joined by "; " or ","). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/[;,]/)) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
  }
  return undefined;
}

/** Is the session still within its timeouts at `now` (seconds)? */
export function sessionAlive(sp: CompiledSessionPersistence, v: SessionValue, now: number): boolean {
  if (sp.absoluteTimeoutSeconds !== undefined && now - v.started >= sp.absoluteTimeoutSeconds) return false;
  if (sp.idleTimeoutSeconds !== undefined && now - v.used >= sp.idleTimeoutSeconds) return false;
  return true;
}

/** The Set-Cookie header value that starts or refreshes a session. */
export function setCookieHeader(sp: CompiledSessionPersistence, v: SessionValue): string {
  const parts = [`${sp.cookieName}=${encodeSession(v)}`, `Path=${sp.path}`, 'HttpOnly'];
  if (sp.lifetime === 'Permanent') {
    const left = sp.absoluteTimeoutSeconds !== undefined ? Math.max(0, sp.absoluteTimeoutSeconds - (v.used - v.started)) : undefined;
    // a permanent cookie with no absolute timeout (the API requires one) outlives the browser for a day
    parts.push(`Max-Age=${left ?? 86400}`);
  }
  return parts.join('; ');
}
