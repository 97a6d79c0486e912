// The embedded defaults: no DATABASE_URL, no REDIS_URL. Start, write, read, stop, start, read again.
import { expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess } from '../support/process';
import { client } from '../support/server';

it('keeps what was committed across a restart, and generates a private admin token', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-embedded-'));
  const env = { SWITCHYARD_DATA_DIR: dir, ADMIN_TOKEN: undefined };
  const first = await startProcess(env);
  const tokenFile = join(dir, 'admin-token');
  const token = readFileSync(tokenFile, 'utf8').trim();
  expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
  expect(first.output()).toContain(tokenFile);
  expect(first.output()).not.toContain(token);

  const api = client(first.url, token);
  const put = await api('PUT', '/api/v1/namespaces/default/services/web', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } });
  expect(put.status).toBe(201);
  expect((await api('GET', '/api/v1/namespaces/default/services/web')).status).toBe(200);
  expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
  expect(await first.stop('SIGTERM')).toBe(0);

  const second = await startProcess(env);
  const api2 = client(second.url, token);
  const got = await api2('GET', '/api/v1/namespaces/default/services/web');
  expect(got.status).toBe(200);
  expect(got.body.metadata.uid).toBe(put.body.metadata.uid);
  const again = await api2('PATCH', '/api/v1/namespaces/default/services/web', { metadata: { labels: { v: '2' } } });
  expect(again.body.metadata.resourceVersion).toBe('2');
  expect(await second.stop('SIGTERM')).toBe(0);
}, 120_000);
