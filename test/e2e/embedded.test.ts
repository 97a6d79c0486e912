// The embedded defaults: no DATABASE_URL, no REDIS_URL. Start, write, read, stop, start, read again.
import { expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startProcess } from '../support/process';
import { client } from '../support/server';
import { tempDir } from '../support/temp-dir';

it('keeps what was committed across a restart, and generates a private admin token', async () => {
  const dir = tempDir('sy-embedded-');
  const env = { SWITCHYARD_DATA_DIR: dir, ADMIN_TOKEN: undefined };
  const first = await startProcess(env);
  const tokenFile = join(dir, 'admin-token');
  const token = readFileSync(tokenFile, 'utf8').trim();
  expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
  // the service's stdout reaches this process on its own pipe, perhaps after its first answer
  for (let i = 0; i < 50 && !first.output().includes(tokenFile); i++) await new Promise((r) => setTimeout(r, 20));
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

it('on SIGTERM finishes the requests in flight and loses nothing it answered', async () => {
  const dir = tempDir('sy-term-');
  const env = { SWITCHYARD_DATA_DIR: dir, ADMIN_TOKEN: 'term-token-0123456789' };
  const first = await startProcess(env);
  const api = client(first.url, 'term-token-0123456789');
  const writes = Array.from({ length: 40 }, (_, i) =>
    api('PUT', `/api/v1/namespaces/default/services/s${i}`, { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 + i }] } })
      .then((r) => ({ i, status: r.status, rv: r.body?.metadata?.resourceVersion }))
      .catch(() => ({ i, status: 0, rv: undefined })));
  await new Promise((r) => setTimeout(r, 15));
  const exit = first.stop('SIGTERM');
  const results = await Promise.all(writes);
  expect(await exit).toBe(0);
  const answered = results.filter((r) => r.status === 201);
  expect(answered.length).toBeGreaterThan(0);
  // every request either got a whole answer or was refused before it began: no 5xx, no cut-off
  for (const r of results) expect([0, 201, 503]).toContain(r.status);

  const second = await startProcess(env);
  const api2 = client(second.url, 'term-token-0123456789');
  for (const r of answered) {
    const got = await api2('GET', `/api/v1/namespaces/default/services/s${r.i}`);
    expect(got.status).toBe(200);
    expect(got.body.metadata.resourceVersion).toBe(r.rv);
  }
  const metrics = await (await fetch(`${second.url}/metrics`)).text();
  expect(metrics).toContain('switchyard_http_requests_total{method="GET",route="/api/v1/namespaces/:namespace/services/:name",code="200"}');
  await api2('PUT', '/api/v1/namespaces/default/services/m', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 1 }] } });
  expect(await (await fetch(`${second.url}/metrics`)).text()).toContain('switchyard_events_appended_total{kind="Service",type="Created"} 1');
  expect(await second.stop('SIGTERM')).toBe(0);
}, 120_000);
