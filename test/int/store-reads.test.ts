// The store operations moved out of the service and the delivery hub, each against a real store:
// tokens, and the snapshot reads a proxy's requests make.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { startTestServer, type TestServer } from '../support/server';
import type { Database } from '../../src/adapters/store/database';
import { findLiveToken, insertToken, listTokens, revokeToken } from '../../src/adapters/store/tokens';
import { readSecretsWithData, readSnapshot, readSnapshotVersions, readUnattached } from '../../src/adapters/store/snapshot-reads';
import { pingDatabase } from '../../src/adapters/store/ping';

let s: TestServer;
let db: Database;
beforeAll(async () => {
  s = await startTestServer({}, { worker: false });
  db = s.running.ctx.db;
});
afterAll(async () => {
  await s?.close();
});

describe('store/tokens', () => {
  const token = { id: 'id-1', name: 'ci', role: 'developer' as const, namespaces: ['team'], gateways: [], createdAt: '2026-01-02T03:04:05.000Z', hash: 'ab'.repeat(32) };

  it('inserts once per name, lists, finds a live token by its hash, and revokes', async () => {
    expect(await insertToken(db.sql, token)).toBe('created');
    expect(await insertToken(db.sql, { ...token, id: 'id-2', hash: 'cd'.repeat(32) })).toBe('name-taken');
    expect(await listTokens(db.sql)).toEqual([{ id: 'id-1', name: 'ci', role: 'developer', namespaces: ['team'], gateways: [], createdAt: '2026-01-02T03:04:05.000Z' }]);
    expect(await findLiveToken(db.sql, token.hash)).toEqual({ name: 'ci', role: 'developer', namespaces: ['team'], gateways: [] });
    expect(await findLiveToken(db.sql, 'ef'.repeat(32))).toBeNull();
    const revoked = await revokeToken(db.sql, 'id-1');
    expect(revoked?.revokedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await revokeToken(db.sql, 'id-1'))?.revokedAt).toBe(revoked?.revokedAt);
    expect(await findLiveToken(db.sql, token.hash)).toBeNull();
    expect(await revokeToken(db.sql, 'no-such-id')).toBeNull();
  });

  it('does not find an expired token', async () => {
    await insertToken(db.sql, { ...token, id: 'id-3', name: 'old', hash: '12'.repeat(32), expiresAt: '2000-01-01T00:00:00.000Z' });
    expect(await findLiveToken(db.sql, '12'.repeat(32))).toBeNull();
  });
});

describe('store/snapshot-reads', () => {
  it('reads a stored snapshot, versions of several, and the unattached routes', async () => {
    await db.sql.$executeRawUnsafe(
      `INSERT INTO snapshots (gateway, version, hash, body, tail_z, source_position, updated_at, unattached) VALUES
       ('Gateway/infra/a', 3, 'h', NULL, $1::bytea, 1, now(), '[{"name":"r"}]'), ('Gateway/infra/b', 9, 'h', '{"old":true}', NULL, 1, now(), '[]')`,
      deflateRawSync(',"hash":"h","table":{}}'));
    const a = await readSnapshot(db.sql, 'Gateway/infra/a');
    expect(a?.version).toBe(3);
    expect(a?.body).toBeNull();
    expect(inflateRawSync(a!.tailZ!).toString('utf8')).toBe(',"hash":"h","table":{}}');
    expect(await readSnapshot(db.sql, 'Gateway/infra/b')).toEqual({ version: 9, body: '{"old":true}', tailZ: null, baseVersion: null, deltas: [] });
    expect(await readSnapshot(db.sql, 'Gateway/infra/none')).toBeNull();
    expect(await readSnapshotVersions(db.sql, ['Gateway/infra/a', 'Gateway/infra/b', 'Gateway/infra/none'])).toEqual(new Map([['Gateway/infra/a', 3], ['Gateway/infra/b', 9]]));
    expect(await readUnattached(db.sql, 'Gateway/infra/a')).toBe('[{"name":"r"}]');
    expect(await readUnattached(db.sql, 'Gateway/infra/none')).toBeNull();
  });

  it('reads the live Secrets named, with their data, in namespace/name order', async () => {
    const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'infra' }, type: 'kubernetes.io/tls', data: { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' } });
    for (const n of ['z', 'a', 'gone']) expect((await s.api('PUT', `/api/v1/namespaces/infra/secrets/${n}`, secret(n))).status).toBe(201);
    expect((await s.api('DELETE', '/api/v1/namespaces/infra/secrets/gone')).status).toBe(200);
    expect(await readSecretsWithData(db.sql, ['Secret/infra/z', 'Secret/infra/a', 'Secret/infra/gone', 'Secret/infra/never'])).toEqual([
      { namespace: 'infra', name: 'a', type: 'kubernetes.io/tls', data: { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' } },
      { namespace: 'infra', name: 'z', type: 'kubernetes.io/tls', data: { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' } },
    ]);
  });
});

it('store/ping answers while the database does', async () => {
  await expect(pingDatabase(db.sql)).resolves.toBeUndefined();
});
