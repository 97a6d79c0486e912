// The tokens table: API tokens kept as the hex SHA-256 of the secret, never the secret itself.
import type { SqlRunner } from './database';
import type { components } from '../../generated/api';

type TokenInfo = components['schemas']['TokenInfo'];
type Runner = Pick<SqlRunner, '$queryRawUnsafe' | '$executeRawUnsafe'>;

const COLUMNS = 'id, name, role, namespaces, gateways, mesh, created_at, expires_at, revoked_at';

interface TokenRow {
  id: string;
  name: string;
  role: TokenInfo['role'];
  namespaces: string[] | null;
  gateways: string[] | null;
  mesh: string | null;
  created_at: Date | string;
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
}

function infoOf(r: TokenRow): TokenInfo {
  const iso = (d: Date | string) => new Date(d).toISOString();
  const out: TokenInfo = { id: r.id, name: r.name, role: r.role, namespaces: r.namespaces ?? [], gateways: r.gateways ?? [], createdAt: iso(r.created_at) };
  if (r.mesh) out.mesh = r.mesh;
  if (r.expires_at) out.expiresAt = iso(r.expires_at);
  if (r.revoked_at) out.revokedAt = iso(r.revoked_at);
  return out;
}

/** 'name-taken': names are unique, and another token holds this one. */
export async function insertToken(db: Runner, t: Omit<TokenInfo, 'revokedAt'> & { hash: string }): Promise<'created' | 'name-taken'> {
  try {
    await db.$executeRawUnsafe(
      `INSERT INTO tokens (id, name, role, namespaces, gateways, hash, created_at, expires_at, mesh) VALUES ($1, $2, $3, $4::text[], $5::text[], $6, $7::timestamptz, $8::timestamptz, $9)`,
      t.id, t.name, t.role, t.namespaces ?? [], t.gateways ?? [], t.hash, t.createdAt, t.expiresAt ?? null, t.mesh ?? null);
    return 'created';
  } catch (e) {
    if (/unique|duplicate|23505/i.test(String((e as Error).message))) return 'name-taken';
    throw e;
  }
}

export async function listTokens(db: Runner): Promise<TokenInfo[]> {
  const rows = await db.$queryRawUnsafe<TokenRow[]>(`SELECT ${COLUMNS} FROM tokens ORDER BY name`);
  return rows.map(infoOf);
}

/** Revoking twice keeps the first time. Null when there is no such token. */
export async function revokeToken(db: Runner, id: string): Promise<TokenInfo | null> {
  const rows = await db.$queryRawUnsafe<TokenRow[]>(
    `UPDATE tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING ${COLUMNS}`, id);
  return rows[0] ? infoOf(rows[0]) : null;
}

/** The token with this hash, unless it is revoked or expired. */
export async function findLiveToken(db: Runner, hash: string): Promise<Pick<TokenInfo, 'name' | 'role' | 'namespaces' | 'gateways' | 'mesh'> | null> {
  const rows = await db.$queryRawUnsafe<Pick<TokenRow, 'name' | 'role' | 'namespaces' | 'gateways' | 'mesh'>[]>(
    `SELECT name, role, namespaces, gateways, mesh FROM tokens WHERE hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`, hash);
  const r = rows[0];
  return r ? { name: r.name, role: r.role, namespaces: r.namespaces ?? [], gateways: r.gateways ?? [], ...(r.mesh ? { mesh: r.mesh } : {}) } : null;
}
