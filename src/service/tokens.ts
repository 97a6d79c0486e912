// Tokens: created with a random secret shown once, stored as a SHA-256, looked up on every request
// (so a revoked or expired token stops on its next request on every API process).
import { randomBytes, randomUUID } from 'node:crypto';
import type { Database } from '../adapters/store/database';
import { findLiveToken, insertToken, listTokens, revokeToken } from '../adapters/store/tokens';
import { ROLES, type Authenticator, type Principal, type Role } from './principal';
import { tokenDigest } from './token-digest';
import { alreadyExists, invalid, notFound } from './errors';
import type { components } from '../generated/api';

const NAME = /^[a-z0-9]([-a-z0-9_.]{0,61}[a-z0-9])?$/;
const RESERVED = new Set(['admin']);

/** What a client sent: the shape of TokenRequest, but not yet checked. */
export type TokenRequest = { [K in keyof components['schemas']['TokenRequest']]?: unknown };
export type TokenInfo = components['schemas']['TokenInfo'];

function stringList(v: unknown, field: string, pattern: RegExp, errors: { path: string; message: string }[]): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    errors.push({ path: field, message: 'must be a list of strings' });
    return [];
  }
  v.forEach((x, i) => {
    if (typeof x !== 'string' || !pattern.test(x)) errors.push({ path: `${field}[${i}]`, message: `invalid value ${JSON.stringify(x)}` });
  });
  return v.filter((x) => typeof x === 'string');
}

export function checkTokenRequest(body: TokenRequest, now: Date): Omit<TokenInfo, 'id' | 'createdAt'> {
  const errors: { path: string; message: string }[] = [];
  if (typeof body.name !== 'string' || !NAME.test(body.name)) errors.push({ path: 'name', message: 'Required value: a name of lowercase letters, digits, "-", "_" or "." (at most 63)' });
  else if (RESERVED.has(body.name)) errors.push({ path: 'name', message: `"${body.name}" is reserved for the bootstrap admin` });
  if (typeof body.role !== 'string' || !ROLES.includes(body.role as Role)) errors.push({ path: 'role', message: `Unsupported value: ${JSON.stringify(body.role)}: supported values: ${ROLES.map((r) => `"${r}"`).join(', ')}` });
  const namespaces = stringList(body.namespaces, 'namespaces', /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, errors);
  const gateways = stringList(body.gateways, 'gateways', /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\/[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, errors);
  const role = body.role as Role;
  if ((role === 'operator' || role === 'developer' || role === 'discovery') && namespaces.length === 0) errors.push({ path: 'namespaces', message: `Required value: a ${role} token acts in named namespaces` });
  let mesh: string | undefined;
  if (body.mesh !== undefined) {
    if (typeof body.mesh !== 'string' || !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(body.mesh)) errors.push({ path: 'mesh', message: `invalid value ${JSON.stringify(body.mesh)}: a namespace name` });
    else if (body.role !== 'proxy') errors.push({ path: 'mesh', message: 'Forbidden: only a proxy token has a mesh scope' });
    else mesh = body.mesh;
  }
  if (role === 'proxy' && gateways.length === 0 && body.mesh === undefined)
    errors.push({ path: 'gateways', message: 'Required value: a proxy token names its Gateways as "namespace/name", or a mesh scope (mesh: a namespace)' });
  let expiresAt: string | undefined;
  if (body.expiresAt !== undefined) {
    const t = typeof body.expiresAt === 'string' ? Date.parse(body.expiresAt) : NaN;
    if (Number.isNaN(t)) errors.push({ path: 'expiresAt', message: 'must be an RFC 3339 time' });
    else if (t <= now.getTime()) errors.push({ path: 'expiresAt', message: 'must be in the future' });
    else expiresAt = new Date(t).toISOString();
  }
  if (errors.length) throw invalid(`the token request is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
  return { name: body.name as string, role, namespaces, gateways, ...(mesh ? { mesh } : {}), ...(expiresAt ? { expiresAt } : {}) };
}

/**
 * How long this process trusts a live token it looked up without asking the store again: a proxy
 * polls its snapshot many times a second, and a query per poll cost more than the answer. A token
 * revoked through this process stops at once; through another, within this time.
 */
export const TOKEN_RECHECK_MS = 1000;
/** bounds the memory of tokens looked up lately (a flood of distinct live tokens only empties it) */
const RECENT_TOKENS_MAX = 10_000;

export class TokenStore implements Authenticator {
  /** live tokens looked up lately, by digest, each until it must be checked again */
  private readonly recent = new Map<string, { principal: Principal; until: number }>();
  /** lookups on their way, by digest: streams that open together with one token wait for one query */
  private readonly looking = new Map<string, Promise<Principal | null>>();

  constructor(private readonly db: Database) {}

  async create(body: TokenRequest, now = new Date()): Promise<TokenInfo & { token: string }> {
    const t = checkTokenRequest(body, now);
    const token = `sy_${randomBytes(32).toString('base64url')}`;
    const info: TokenInfo = { id: randomUUID(), ...t, createdAt: now.toISOString() };
    if ((await insertToken(this.db.sql, { ...info, hash: tokenDigest(token).toString('hex') })) === 'name-taken')
      throw alreadyExists(`a token named "${t.name}" exists; names are unique`);
    return { ...info, token };
  }

  list(): Promise<TokenInfo[]> {
    return listTokens(this.db.sql);
  }

  async revoke(id: string): Promise<TokenInfo> {
    const info = await revokeToken(this.db.sql, id);
    this.recent.clear();
    this.looking.clear();
    if (!info) throw notFound(`no token with id "${id}"`);
    return info;
  }

  authenticate(token: string): Promise<Principal | null> {
    // The lookup is by the token's hash: timing reveals nothing about any stored token.
    const key = tokenDigest(token).toString('hex');
    const known = this.known(key);
    if (known) return Promise.resolve(known);
    const pending = this.looking.get(key);
    if (pending) return pending;
    const lookup = findLiveToken(this.db.sql, key).then((found) => {
      if (!found) return null;
      const { expiresAtMs, ...principal } = found;
      if (this.recent.size >= RECENT_TOKENS_MAX) this.recent.clear();
      this.recent.set(key, { principal, until: Math.min(Date.now() + TOKEN_RECHECK_MS, expiresAtMs ?? Infinity) });
      return principal;
    }).finally(() => {
      if (this.looking.get(key) === lookup) this.looking.delete(key);
    });
    this.looking.set(key, lookup);
    return lookup;
  }

  /** The principal of a token looked up lately and still trusted, without a query; undefined otherwise. */
  peek(token: string): Principal | undefined {
    return this.known(tokenDigest(token).toString('hex'));
  }

  private known(key: string): Principal | undefined {
    const hit = this.recent.get(key);
    if (!hit) return undefined;
    if (hit.until > Date.now()) return hit.principal;
    this.recent.delete(key);
    return undefined;
  }
}
