// Tokens: created with a random secret shown once, stored as a SHA-256, looked up on every request
// (so a revoked or expired token stops on its next request on every API process).
import { randomBytes, randomUUID } from 'node:crypto';
import type { Database } from '../adapters/store/database';
import { ROLES, type Authenticator, type Principal, type Role } from './principal';
import { tokenDigest } from './token-digest';
import { conflict, invalid, notFound } from './errors';
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
  if (role === 'proxy' && gateways.length === 0) errors.push({ path: 'gateways', message: 'Required value: a proxy token names its Gateways as "namespace/name"' });
  let expiresAt: string | undefined;
  if (body.expiresAt !== undefined) {
    const t = typeof body.expiresAt === 'string' ? Date.parse(body.expiresAt) : NaN;
    if (Number.isNaN(t)) errors.push({ path: 'expiresAt', message: 'must be an RFC 3339 time' });
    else if (t <= now.getTime()) errors.push({ path: 'expiresAt', message: 'must be in the future' });
    else expiresAt = new Date(t).toISOString();
  }
  if (errors.length) throw invalid(`the token request is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
  return { name: body.name as string, role, namespaces, gateways, ...(expiresAt ? { expiresAt } : {}) };
}

function row(r: any): TokenInfo {
  const iso = (d: unknown) => (d ? new Date(d as string).toISOString() : undefined);
  const out: TokenInfo = { id: r.id, name: r.name, role: r.role, namespaces: r.namespaces ?? [], gateways: r.gateways ?? [], createdAt: iso(r.created_at)! };
  if (r.expires_at) out.expiresAt = iso(r.expires_at);
  if (r.revoked_at) out.revokedAt = iso(r.revoked_at);
  return out;
}

export class TokenStore implements Authenticator {
  constructor(private readonly db: Database) {}

  async create(body: TokenRequest, now = new Date()): Promise<TokenInfo & { token: string }> {
    const t = checkTokenRequest(body, now);
    const token = `sy_${randomBytes(32).toString('base64url')}`;
    const id = randomUUID();
    try {
      await this.db.sql.$executeRawUnsafe(
        `INSERT INTO tokens (id, name, role, namespaces, gateways, hash, created_at, expires_at) VALUES ($1, $2, $3, $4::text[], $5::text[], $6, $7::timestamptz, $8::timestamptz)`,
        id, t.name, t.role, t.namespaces, t.gateways, tokenDigest(token).toString('hex'), now.toISOString(), t.expiresAt ?? null);
    } catch (e) {
      if (/unique|duplicate|23505/i.test(String((e as Error).message))) throw conflict(`a token named "${t.name}" exists; names are unique`);
      throw e;
    }
    return { id, ...t, createdAt: now.toISOString(), token };
  }

  async list(): Promise<TokenInfo[]> {
    const rows = await this.db.sql.$queryRawUnsafe<any[]>(`SELECT id, name, role, namespaces, gateways, created_at, expires_at, revoked_at FROM tokens ORDER BY name`);
    return rows.map(row);
  }

  async revoke(id: string): Promise<TokenInfo> {
    const rows = await this.db.sql.$queryRawUnsafe<any[]>(
      `UPDATE tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING id, name, role, namespaces, gateways, created_at, expires_at, revoked_at`, id);
    if (!rows[0]) throw notFound(`no token with id "${id}"`);
    return row(rows[0]);
  }

  async authenticate(token: string): Promise<Principal | null> {
    // The lookup is by the token's hash: timing reveals nothing about any stored token.
    const rows = await this.db.sql.$queryRawUnsafe<any[]>(
      `SELECT name, role, namespaces, gateways FROM tokens WHERE hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
      tokenDigest(token).toString('hex'));
    const r = rows[0];
    return r ? { name: r.name, role: r.role, namespaces: r.namespaces ?? [], gateways: r.gateways ?? [] } : null;
  }
}
