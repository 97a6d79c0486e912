// A proxy's poll that finds nothing new (a conditional snapshot GET naming the version held) is
// answered ahead of the routers, from memory (src/adapters/http/snapshot-poll.ts). What a proxy and
// an operator see must not change: the same 304 and headers as the routers give the same request
// spelled so that it reaches them (a query the handler ignores), its access log line and metrics, a revoked
// token refused at once, a token of another Gateway refused, the rate limit applied, and a newer
// version answered in full.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { client, reconciled, startTestServer, type TestServer } from '../support/server';

const GW = 'gateway.networking.k8s.io/v1';
const SNAP = '/api/v1/namespaces/infra/gateways/edge/snapshot';
interface Line { msg: string; reqId?: string; req?: { method: string; url: string }; res?: { statusCode: number }; route?: string; actor?: string }

const lines: Line[] = [];
const logger = pino({ level: 'info' }, new Writable({
  write(chunk, _enc, done) {
    for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
    done();
  },
}));

let s: TestServer;
let proxyToken: string;
let proxyTokenId: string;
let otherToken: string;

beforeAll(async () => {
  s = await startTestServer({ rateLimitPerSecond: 50, rateLimitBurst: 50 }, { logger });
  const puts: [string, unknown][] = [
    ['/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } }],
    ['/api/v1/namespaces/infra/gateways/edge', { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] } }],
    ['/api/v1/namespaces/infra/gateways/other', { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] } }],
  ];
  for (const [p, b] of puts) expect((await s.api('PUT', p, b)).status).toBeLessThan(300);
  const made = await s.api('POST', '/api/v1/tokens', { name: 'edge-proxy', role: 'proxy', gateways: ['infra/edge'] });
  expect(made.status).toBe(201);
  proxyToken = made.body.token;
  proxyTokenId = made.body.id;
  const other = await s.api('POST', '/api/v1/tokens', { name: 'other-proxy', role: 'proxy', gateways: ['infra/other'] });
  otherToken = other.body.token;
  await reconciled(s);
});
afterAll(async () => {
  await s?.close();
});

const pick = (h: Headers) => ({ etag: h.get('etag'), cache: h.get('cache-control'), id: h.get('x-request-id'), type: h.get('content-type') });

describe('a poll that finds nothing new', () => {
  it('answers 304 as the routers do, with the log line and the metrics of any request', async () => {
    const proxy = client(s.url, proxyToken);
    const first = await proxy('GET', SNAP);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    // the token is now known to this process: the next polls take the short way
    const fast = await proxy('GET', SNAP, undefined, { 'if-none-match': etag, 'x-request-id': 'poll-1' });
    const routed = await proxy('GET', `${SNAP}?from=test`, undefined, { 'if-none-match': etag, 'x-request-id': 'poll-1' });
    expect(fast.status).toBe(304);
    expect(routed.status).toBe(304);
    expect(pick(fast.headers)).toEqual(pick(routed.headers));
    expect(fast.headers.get('x-request-id')).toBe('poll-1');
    expect(fast.text).toBe('');
    const polls = lines.filter((l) => l.reqId === 'poll-1');
    expect(polls).toHaveLength(2);
    for (const l of polls) {
      expect(l).toMatchObject({ msg: 'request completed', res: { statusCode: 304 }, actor: 'edge-proxy', route: '/api/v1/namespaces/:namespace/gateways/:name/snapshot' });
    }
    expect(polls.map((l) => l.req?.url)).toEqual([SNAP, `${SNAP}?from=test`]);
    const metrics = (await s.api('GET', '/metrics')).text;
    const counted = metrics.match(/switchyard_http_requests_total\{method="GET",route="\/api\/v1\/namespaces\/:namespace\/gateways\/:name\/snapshot",code="304"\} (\d+)/);
    expect(Number(counted?.[1])).toBeGreaterThanOrEqual(2);
  });

  it('refuses a token revoked on this process at once, and a token of another Gateway', async () => {
    const proxy = client(s.url, proxyToken);
    const etag = (await proxy('GET', SNAP)).headers.get('etag')!;
    expect((await proxy('GET', SNAP, undefined, { 'if-none-match': etag })).status).toBe(304);
    const other = client(s.url, otherToken);
    expect((await other('GET', '/api/v1/namespaces/infra/gateways/other/snapshot')).status).toBe(200);
    expect((await other('GET', SNAP, undefined, { 'if-none-match': etag })).status).toBe(403);
    expect((await s.api('DELETE', `/api/v1/tokens/${proxyTokenId}`)).status).toBe(200);
    const refused = await proxy('GET', SNAP, undefined, { 'if-none-match': etag });
    expect(refused.status).toBe(401);
  });

  it('spends the token\'s rate as any request does', async () => {
    const made = await s.api('POST', '/api/v1/tokens', { name: 'busy-proxy', role: 'proxy', gateways: ['infra/edge'] });
    // a second API process on the same database, whose limit a test can exhaust: 5 at once, 1 a second
    const limited = await startTestServer({ rateLimitPerSecond: 1, rateLimitBurst: 5 }, { sameDatabaseAs: s, worker: false });
    try {
      const proxy = client(limited.url, made.body.token);
      const etag = (await proxy('GET', SNAP)).headers.get('etag')!;
      const codes: number[] = [];
      for (let i = 0; i < 12; i++) codes.push((await proxy('GET', SNAP, undefined, { 'if-none-match': etag })).status);
      expect(codes.slice(0, 4)).toEqual([304, 304, 304, 304]);
      expect(codes).toContain(429);
      const refused = await proxy('GET', SNAP, undefined, { 'if-none-match': etag });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await limited.close();
    }
  });

  it('answers a newer version in full', async () => {
    const cur = await s.api('GET', SNAP);
    const etag = cur.headers.get('etag')!;
    expect((await s.api('GET', SNAP, undefined, { 'if-none-match': etag })).status).toBe(304);
    const route = {
      apiVersion: GW, kind: 'HTTPRoute',
      spec: { parentRefs: [{ name: 'edge', namespace: 'infra' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/new' } }] }] },
    };
    expect((await s.api('PUT', '/api/v1/namespaces/infra/httproutes/new', route)).status).toBe(201);
    await reconciled(s);
    let answer = await s.api('GET', SNAP, undefined, { 'if-none-match': etag });
    for (let i = 0; i < 100 && answer.status === 304; i++) {
      await new Promise((r) => setTimeout(r, 50));
      answer = await s.api('GET', SNAP, undefined, { 'if-none-match': etag });
    }
    expect(answer.status).toBe(200);
    expect(answer.body.version).toBeGreaterThan(cur.body.version);
    expect(JSON.stringify(answer.body.table)).toContain('/new');
  });
});
