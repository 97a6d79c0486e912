// Our own paths and the events feed say where a status change stands in the terms the Kubernetes
// paths use: a read carries Last-Change-Position (the Kubernetes resourceVersion: the position of
// the last change, a status's included) while resourceVersion stays the stream version, and the
// feed with ?status=true carries each status change as a StatusChanged item at that position,
// strictly after the events before it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, reconciled, startTestServer, type TestServer } from '../support/server';
import { sse } from '../support/sse';

const GW = 'gateway.networking.k8s.io';
const CONTROLLER = 'switchyard.dev/gateway-controller';
let s: TestServer;

const gateway = (open: boolean) => ({
  apiVersion: `${GW}/v1`, kind: 'Gateway',
  spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: open ? { from: 'Same' } : { from: 'Selector', selector: { matchLabels: { admitted: 'never' } } } } }] },
});
const route = { apiVersion: `${GW}/v1`, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'edge' }] } };
const accepted = (o: any) => o.status?.parents?.[0]?.conditions?.find((c: any) => c.type === 'Accepted')?.status;

beforeAll(async () => {
  s = await startTestServer();
  await s.api('PUT', '/api/v1/gatewayclasses/sy', { apiVersion: `${GW}/v1`, kind: 'GatewayClass', spec: { controllerName: CONTROLLER } });
  await s.api('PUT', '/api/v1/namespaces/st/gateways/edge', gateway(true));
  await s.api('PUT', '/api/v1/namespaces/st/httproutes/web', route);
  await reconciled(s);
}, 60_000);
afterAll(async () => {
  await s?.close();
});

describe('status positions on our own paths', () => {
  it('a read carries Last-Change-Position, the Kubernetes resourceVersion, and a status change moves it but not the resourceVersion', async () => {
    const own = await s.api('GET', '/api/v1/namespaces/st/httproutes/web');
    const kube = await s.api('GET', `/apis/${GW}/v1/namespaces/st/httproutes/web`);
    expect(own.body.metadata.resourceVersion).toBe('1');
    expect(own.headers.get('etag')).toBe('"1"');
    expect(own.headers.get('last-change-position')).toBe(kube.body.metadata.resourceVersion);

    await s.api('PUT', '/api/v1/namespaces/st/gateways/edge', gateway(false));
    await reconciled(s);
    const after = await s.api('GET', '/api/v1/namespaces/st/httproutes/web');
    expect(accepted(after.body)).toBe('False');
    expect(after.body.metadata.resourceVersion).toBe('1');
    expect(Number(after.headers.get('last-change-position'))).toBeGreaterThan(Number(own.headers.get('last-change-position')));
    expect(after.headers.get('last-change-position')).toBe((await s.api('GET', `/apis/${GW}/v1/namespaces/st/httproutes/web`)).body.metadata.resourceVersion);
  });

  it('the feed with ?status=true carries StatusChanged items in position order; without it, the log alone', async () => {
    const plain = await s.api('GET', '/api/v1/events?limit=1000');
    expect(plain.body.items.every((e: any) => e.type !== 'StatusChanged')).toBe(true);
    const feed = await s.api('GET', '/api/v1/events?status=true&limit=1000');
    expect(feed.status).toBe(200);
    const positions = feed.body.items.map((e: any) => e.position);
    expect([...positions].sort((a: number, b: number) => a - b)).toEqual(positions);
    expect(new Set(positions).size).toBe(positions.length);
    const changed = feed.body.items.filter((e: any) => e.type === 'StatusChanged' && e.kind === 'HTTPRoute' && e.name === 'web');
    expect(changed).toHaveLength(1); // its latest status change
    expect(changed[0]).toMatchObject({ namespace: 'st', version: 1, actor: CONTROLLER });
    expect(accepted(changed[0].object)).toBe('False');
    const read = await s.api('GET', '/api/v1/namespaces/st/httproutes/web');
    expect(String(changed[0].position)).toBe(read.headers.get('last-change-position'));
    // paging: a page of one item at a time walks the same items
    const walked: number[] = [];
    let after = 0;
    for (let i = 0; i < 200; i++) {
      const page = await s.api('GET', `/api/v1/events?status=true&limit=1&after=${after}`);
      walked.push(...page.body.items.map((e: any) => e.position));
      if (page.body.items.length === 0) break;
      after = page.body.next;
    }
    expect(walked).toEqual(positions);
    expect((await s.api('GET', '/api/v1/events?status=maybe')).status).toBe(400);
  });

  it('the feed watch with ?status=true sends a status change as it happens', async () => {
    const w = await sse(`${s.url}/api/v1/events/watch?status=true&kind=HTTPRoute`, { authorization: `Bearer ${ADMIN_TOKEN}` });
    try {
      await s.api('PUT', '/api/v1/namespaces/st/gateways/edge', gateway(true));
      const ev = await w.next((e) => e.event === 'StatusChanged');
      const item = JSON.parse(ev.data);
      expect(item).toMatchObject({ kind: 'HTTPRoute', namespace: 'st', name: 'web', type: 'StatusChanged' });
      expect(accepted(item.object)).toBe('True');
      expect(ev.id).toBe(String(item.position));
    } finally {
      w.close();
    }
  });
});
