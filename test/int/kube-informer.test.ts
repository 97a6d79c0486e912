// An informer from @kubernetes/client-node (list, then watch) sees every change of HTTPRoutes, in
// the order they were made, across a restart of the API process: its watch resumes from the last
// resourceVersion it saw, and the changes made while it was away come to it in order, once each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig, CustomObjectsApi, makeInformer, type KubernetesObject } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubeconfig } from '../../src/core/kube/kubeconfig';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/server';
import { freshDatabaseUrl } from '../support/database';
import { tempDir } from '../support/temp-dir';

const GW = 'gateway.networking.k8s.io';
const NS = 'team-i';
const path = `/apis/${GW}/v1/namespaces/${NS}/httproutes`;
let s: TestServer;
let db: { url?: string; drop: () => Promise<void> };
// the API's data directory, kept across its restart
let dataDir: string;

const route = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: `${GW}/v1`, kind: 'HTTPRoute', metadata: { name, labels }, spec: { parentRefs: [{ name: 'nowhere' }] },
});

// no worker: no status is written, so every change the informer sees is one made here
const start = (port = 0) => startTestServer({ port, dataDir, rateLimitPerSecond: 0 }, { databaseUrl: db.url, worker: false });

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!process.env.DATABASE_URL)('client-node informer', () => {
  beforeAll(async () => {
    dataDir = tempDir('sy-informer-');
    db = await freshDatabaseUrl();
    s = await start();
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await db?.drop();
  });

  it('sees every change in order across a restart of the API', async () => {
    const kc = new KubeConfig();
    const ca = readFileSync(join(dataDir, 'kube-tls.crt'), 'utf8');
    kc.loadFromString(kubeconfig(`https://127.0.0.1:${s.running.port}/k8s`, 'admin', ADMIN_TOKEN, ca));
    const api = kc.makeApiClient(CustomObjectsApi);
    await s.api('POST', path, route('before'));
    const informer = makeInformer<KubernetesObject>(kc, path, () => api.listNamespacedCustomObject({ group: GW, version: 'v1', namespace: NS, plural: 'httproutes' }) as never);
    const seen: string[] = [];
    const label = (o: KubernetesObject) => o.metadata?.labels?.v ?? '-';
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name} ${label(o)}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata?.name} ${label(o)}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    // an informer stops at an error (the API away); it is started again, and resumes where it was
    informer.on('error', () => {
      setTimeout(() => void informer.start().catch(() => undefined), 1000);
    });
    await informer.start();
    try {
      await until(() => seen.length === 1, 'the list');
      await s.api('POST', path, route('r1'));
      await s.api('POST', path, route('r2'));
      await s.api('PATCH', `${path}/r1`, { metadata: { labels: { v: '1' } } }, { 'content-type': 'application/merge-patch+json' });
      await until(() => seen.length === 4, 'the changes before the restart');

      const port = s.running.port;
      await s.running.close();
      s = await start(port);
      // made at once: the informer is still away, and must catch up from where it was
      await s.api('PATCH', `${path}/r2`, { metadata: { labels: { v: '2' } } }, { 'content-type': 'application/merge-patch+json' });
      await s.api('DELETE', `${path}/r1`);
      await s.api('POST', path, route('r3', { v: '3' }));
      await s.api('PATCH', `${path}/r3`, { metadata: { labels: { v: '4' } } }, { 'content-type': 'application/merge-patch+json' });
      await until(() => seen.length >= 8, 'the changes after the restart');
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await informer.stop();
    }
    expect(seen).toEqual([
      'add before -', 'add r1 -', 'add r2 -', 'update r1 1',
      'update r2 2', 'delete r1', 'add r3 3', 'update r3 4',
    ]);
  }, 90_000);
});
