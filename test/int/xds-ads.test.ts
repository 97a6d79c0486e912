// The ADS protocol as the xDS server speaks it, seen from a plain gRPC client on the service's own
// definition: who may open a stream, TLS, and the incremental variant's versions, removals, NACKs
// and resumption (no client that speaks delta xDS runs here: Envoy cannot be installed, and the
// gRPC libraries speak state of the world, which test/int/xds-grpc-js.test.ts covers with one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { freePort, mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { adsService } from '../../src/adapters/grpc/ads-service';
import { decodeMessage } from '../../src/adapters/grpc/xds-protos';
import { TYPE_URL } from '../../src/core/xds/types';

let s: TestServer;
let token: string;
let otherToken: string;
const NS = 'apps';
const LISTENER = 'echo.example.com:8080';
const Ads = grpc.makeGenericClientConstructor(adsService(), 'AggregatedDiscoveryService');

async function put(path: string, body: Record<string, unknown>): Promise<void> {
  const r = await s.api('PUT', path, body);
  if (r.status >= 300) throw new Error(`PUT ${path}: ${r.status} ${r.text}`);
}
const route = (backends: { name: string; weight?: number }[]) => put(`/api/v1/namespaces/${NS}/grpcroutes/echo`, {
  apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GRPCRoute', metadata: { name: 'echo' },
  spec: { parentRefs: [{ name: 'gw' }], rules: [{ matches: [{ method: { service: 'echo.Echo' } }], backendRefs: backends.map((b) => ({ ...b, port: 50051 })) }] },
});
const service = (name: string, addresses: string[]) => Promise.all([
  put(`/api/v1/namespaces/${NS}/services/${name}`, { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ name: 'grpc', port: 50051 }] } }),
  put(`/api/v1/namespaces/${NS}/endpointslices/${name}-1`, {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `${name}-1`, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4', ports: [{ name: 'grpc', port: 9000 }], endpoints: addresses.map((a) => ({ addresses: [a], conditions: { ready: true } })),
  }),
]);

const node = (extra: Record<string, string> = {}, cluster = `${NS}/gw`) => ({
  id: 'raw-node', cluster,
  metadata: { fields: Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, { stringValue: v }])) },
});

/** A stream with its responses queued, each taken in turn. */
function open(method: 'StreamAggregatedResources' | 'DeltaAggregatedResources', opts: { token?: string; tls?: string; address?: string; server?: TestServer } = {}) {
  const creds = opts.tls ? grpc.credentials.createSsl(Buffer.from(opts.tls)) : grpc.credentials.createInsecure();
  // the certificate names localhost: a client at another address checks it against that name
  const client = new Ads(`${opts.address ?? (opts.tls ? 'localhost' : '127.0.0.1')}:${(opts.server ?? s).running.xds!.port}`, creds, opts.address && opts.tls ? { 'grpc.ssl_target_name_override': 'localhost', 'grpc.default_authority': 'localhost' } : {});
  const md = new grpc.Metadata();
  if (opts.token) md.set('authorization', `Bearer ${opts.token}`);
  const call = (client as any)[method](md) as grpc.ClientDuplexStream<any, any>;
  const queue: any[] = [];
  const waiters: ((v: any) => void)[] = [];
  let error: grpc.ServiceError | undefined;
  const errored = new Promise<grpc.ServiceError>((resolve) => call.on('error', (e: grpc.ServiceError) => { error = e; resolve(e); }));
  call.on('data', (r) => (waiters.length ? waiters.shift()!(r) : queue.push(r)));
  return {
    send: (r: unknown) => call.write(r),
    next: (ms = 15_000): Promise<any> => queue.length ? Promise.resolve(queue.shift()) : new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no response within ${ms} ms${error ? `: ${error.message}` : ''}`)), ms);
      waiters.push((v) => { clearTimeout(t); resolve(v); });
    }),
    /** nothing arrives within ms */
    quiet: async (ms = 1500) => { await new Promise((r) => setTimeout(r, ms)); return queue.length === 0; },
    errored,
    close: () => { call.cancel(); client.close(); },
  };
}

/** The names of a response's resources (a SotW response's are read from the resources themselves). */
const names = (r: any) => r.resources.map((x: any) => x.name ?? (decodeMessage(x.type_url, x.value) as any).name ?? (decodeMessage(x.type_url, x.value) as any).cluster_name).sort();

beforeAll(async () => {
  // on every interface: a client from a non-loopback address must speak TLS
  s = await startTestServer({ xdsPort: await freePort(), host: '0.0.0.0' });
  await put('/api/v1/gatewayclasses/switchyard', { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'switchyard' }, spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  for (const gw of ['gw', 'other']) {
    await put(`/api/v1/namespaces/${NS}/gateways/${gw}`, {
      apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: gw },
      spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'grpc', protocol: 'HTTP', port: 8080 }] },
    });
  }
  await service('echo-a', ['10.0.0.1']);
  await service('echo-b', ['10.0.0.2']);
  await route([{ name: 'echo-a' }]);
  await reconciled(s);
  token = await mintToken(s, { name: 'gw-proxy', role: 'proxy', gateways: [`${NS}/gw`] });
  otherToken = await mintToken(s, { name: 'other-proxy', role: 'proxy', gateways: [`${NS}/other`] });
}, 180_000);

afterAll(async () => {
  await s?.close();
});

describe('who may open a stream', () => {
  it('no token: UNAUTHENTICATED', async () => {
    const st = open('StreamAggregatedResources');
    st.send({ node: node(), type_url: TYPE_URL.listener, resource_names: [LISTENER] });
    expect((await st.errored).code).toBe(grpc.status.UNAUTHENTICATED);
    st.close();
  });
  it('an unknown token: UNAUTHENTICATED', async () => {
    const st = open('StreamAggregatedResources', { token: 'sy_not-a-token' });
    st.send({ node: node(), type_url: TYPE_URL.listener, resource_names: [LISTENER] });
    expect((await st.errored).code).toBe(grpc.status.UNAUTHENTICATED);
    st.close();
  });
  it("another Gateway's token: PERMISSION_DENIED", async () => {
    const st = open('StreamAggregatedResources', { token: otherToken });
    st.send({ node: node(), type_url: TYPE_URL.listener, resource_names: [LISTENER] });
    const e = await st.errored;
    expect(e.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(e.details).toContain('apps/gw');
    st.close();
  });
  it('the token in node metadata, the Gateway in node metadata, over TLS', async () => {
    const st = open('StreamAggregatedResources', { tls: s.running.ctx.config.dataDir && (await import('node:fs')).readFileSync(`${s.running.ctx.config.dataDir}/kube-tls.crt`, 'utf8') });
    st.send({ node: node({ 'switchyard.dev/token': token, 'switchyard.dev/gateway': `${NS}/gw` }, ''), type_url: TYPE_URL.listener, resource_names: [LISTENER] });
    const r = await st.next();
    expect(names(r)).toEqual([LISTENER]);
    st.close();
  });
});

/** This machine's first non-loopback IPv4 address, if it has one. */
async function outsideAddress(): Promise<string | undefined> {
  const { networkInterfaces } = await import('node:os');
  return Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}

describe('tokens never cross a network in the clear', () => {
  it('plaintext from a non-loopback address is refused; TLS from it is served', async (ctx) => {
    const address = await outsideAddress();
    if (!address) return ctx.skip();
    const plain = open('StreamAggregatedResources', { token, address });
    plain.send({ node: node(), type_url: TYPE_URL.listener, resource_names: [LISTENER] });
    expect((await plain.errored).code).toBe(grpc.status.UNAVAILABLE);
    plain.close();
    const cert = (await import('node:fs')).readFileSync(`${s.running.ctx.config.dataDir}/kube-tls.crt`, 'utf8');
    const secure = open('StreamAggregatedResources', { token, address, tls: cert });
    secure.send({ node: node(), type_url: TYPE_URL.listener, resource_names: [LISTENER] });
    expect(names(await secure.next())).toEqual([LISTENER]);
    secure.close();
  });
});

describe('state of the world', () => {
  it('a NACKed version is not sent again; the next change is', async () => {
    const st = open('StreamAggregatedResources', { token });
    st.send({ node: { ...node(), id: 'raw-sotw-node' }, type_url: TYPE_URL.route, resource_names: [LISTENER] });
    const first = await st.next();
    expect(names(first)).toEqual([LISTENER]);
    st.send({ type_url: TYPE_URL.route, resource_names: [LISTENER], version_info: '', response_nonce: first.nonce, error_detail: { code: 3, message: 'refused for the test' } });
    // the same request again (the client asks once more): the refused version is not re-sent
    expect(await st.quiet()).toBe(true);
    // proxy-status shows the node NACKED, with the client's error
    const listed = await s.api('GET', `/api/v1/namespaces/${NS}/gateways/gw/proxies`);
    const item = listed.body.items.find((i: any) => i.id === 'xds:raw-sotw-node');
    expect(item).toMatchObject({ state: 'NACKED', error: 'route NACKED: refused for the test', xds: { variant: 'sotw', types: { route: { nacked: { version: first.version_info, error: 'refused for the test' } } } } });
    await route([{ name: 'echo-b' }]);
    const next = await st.next();
    expect(next.version_info).not.toBe(first.version_info);
    const rc = decodeMessage(TYPE_URL.route, next.resources[0].value) as any;
    expect(rc.virtual_hosts[0].routes[0].route.cluster).toBe('apps/echo-b:50051');
    st.close();
  });
});

describe('incremental (delta)', () => {
  it('sends what changed and nothing else, removals as removals, and resumes from what a client holds', async () => {
    await route([{ name: 'echo-a' }]);
    await reconciled(s);
    const st = open('DeltaAggregatedResources', { token });
    st.send({ node: node(), type_url: TYPE_URL.listener, resource_names_subscribe: [LISTENER] });
    const l = await st.next();
    expect(names(l)).toEqual([LISTENER]);
    st.send({ type_url: TYPE_URL.listener, response_nonce: l.nonce });
    st.send({ type_url: TYPE_URL.route, resource_names_subscribe: [LISTENER] });
    const r1 = await st.next();
    expect(names(r1)).toEqual([LISTENER]);
    st.send({ type_url: TYPE_URL.route, response_nonce: r1.nonce });
    st.send({ type_url: TYPE_URL.cluster, resource_names_subscribe: ['apps/echo-a:50051', 'apps/echo-b:50051'] });
    const c1 = await st.next();
    // echo-b is not named by any route yet: told it does not exist
    expect(names(c1)).toEqual(['apps/echo-a:50051']);
    expect(c1.removed_resources).toEqual(['apps/echo-b:50051']);
    st.send({ type_url: TYPE_URL.cluster, response_nonce: c1.nonce });
    st.send({ type_url: TYPE_URL.endpoint, resource_names_subscribe: ['apps/echo-a:50051'] });
    const e1 = await st.next();
    expect(names(e1)).toEqual(['apps/echo-a:50051']);
    st.send({ type_url: TYPE_URL.endpoint, response_nonce: e1.nonce });
    const held = Object.fromEntries([l, r1, c1, e1].flatMap((r) => r.resources.map((x: any) => [`${r.type_url}|${x.name}`, x.version])));

    // an endpoint change: that endpoint set alone
    await service('echo-a', ['10.0.0.1', '10.0.0.3']);
    const e2 = await st.next();
    expect(e2.type_url).toBe(TYPE_URL.endpoint);
    expect(names(e2)).toEqual(['apps/echo-a:50051']);
    expect(e2.removed_resources).toEqual([]);
    st.send({ type_url: TYPE_URL.endpoint, response_nonce: e2.nonce });
    expect(await st.quiet()).toBe(true);

    // the route moves to echo-b: the cluster it now names first, then the route
    await route([{ name: 'echo-b' }]);
    const c2 = await st.next();
    expect([c2.type_url, names(c2)]).toEqual([TYPE_URL.cluster, ['apps/echo-b:50051']]);
    st.send({ type_url: TYPE_URL.cluster, response_nonce: c2.nonce });
    const r2 = await st.next();
    expect([r2.type_url, names(r2)]).toEqual([TYPE_URL.route, [LISTENER]]);
    // a NACK of the route: that version is not sent again
    st.send({ type_url: TYPE_URL.route, response_nonce: r2.nonce, error_detail: { code: 3, message: 'refused for the test' } });
    // echo-a is no longer named: removed, after the route
    const c3 = await st.next();
    expect([c3.type_url, c3.resources.length, c3.removed_resources]).toEqual([TYPE_URL.cluster, 0, ['apps/echo-a:50051']]);
    st.send({ type_url: TYPE_URL.cluster, response_nonce: c3.nonce });
    const e3 = await st.next();
    expect([e3.type_url, e3.removed_resources]).toEqual([TYPE_URL.endpoint, ['apps/echo-a:50051']]);
    st.send({ type_url: TYPE_URL.endpoint, response_nonce: e3.nonce });
    expect(await st.quiet()).toBe(true);
    st.close();

    // a client back on a new stream with what it held is sent only what differs from it
    const again = open('DeltaAggregatedResources', { token });
    again.send({ node: node(), type_url: TYPE_URL.listener, resource_names_subscribe: [LISTENER], initial_resource_versions: { [LISTENER]: held[`${TYPE_URL.listener}|${LISTENER}`] } });
    expect(await again.quiet()).toBe(true);
    again.send({ type_url: TYPE_URL.route, resource_names_subscribe: [LISTENER], initial_resource_versions: { [LISTENER]: held[`${TYPE_URL.route}|${LISTENER}`] } });
    const r3 = await again.next();
    expect(names(r3)).toEqual([LISTENER]);
    expect(r3.resources[0].version).toBe(r2.resources[0].version);
    again.close();
  });

  it('another API process, without a worker, serves the Gateway and follows its changes', async () => {
    const second = await startTestServer({ xdsPort: await freePort() }, { sameDatabaseAs: s, worker: false });
    try {
      const st = open('DeltaAggregatedResources', { token, server: second });
      st.send({ node: node(), type_url: TYPE_URL.route, resource_names_subscribe: [LISTENER] });
      const r1 = await st.next();
      st.send({ type_url: TYPE_URL.route, response_nonce: r1.nonce });
      await route([{ name: 'echo-a', weight: 1 }, { name: 'echo-b', weight: 3 }]);
      const r2 = await st.next();
      const rc = decodeMessage(TYPE_URL.route, r2.resources[0].resource.value) as any;
      expect(rc.virtual_hosts[0].routes[0].route.weighted_clusters.clusters.map((c: any) => [c.name, c.weight.value])).toEqual([['apps/echo-a:50051', 1], ['apps/echo-b:50051', 3]]);
      st.close();
    } finally {
      await second.close();
    }
  }, 180_000);

  it('a client that moves to another API process with what it holds is sent nothing again; the next change reaches it there', async () => {
    await route([{ name: 'echo-a' }]);
    await reconciled(s);
    const first = open('DeltaAggregatedResources', { token });
    const held: Record<string, Record<string, string>> = {};
    const take = async (st: ReturnType<typeof open>) => {
      const r = await st.next();
      for (const x of r.resources) (held[r.type_url] ??= {})[x.name] = x.version;
      for (const n of r.removed_resources) delete held[r.type_url]?.[n];
      st.send({ type_url: r.type_url, response_nonce: r.nonce });
      return r;
    };
    first.send({ node: node(), type_url: TYPE_URL.listener, resource_names_subscribe: [LISTENER] });
    await take(first);
    first.send({ type_url: TYPE_URL.route, resource_names_subscribe: [LISTENER] });
    await take(first);
    first.send({ type_url: TYPE_URL.cluster, resource_names_subscribe: ['apps/echo-a:50051'] });
    await take(first);
    first.send({ type_url: TYPE_URL.endpoint, resource_names_subscribe: ['apps/echo-a:50051'] });
    await take(first);
    expect(await first.quiet(500)).toBe(true);
    // the process it talked to goes away; it reconnects to another, with what it holds
    first.close();
    const second = await startTestServer({ xdsPort: await freePort() }, { sameDatabaseAs: s, worker: false });
    try {
      const st = open('DeltaAggregatedResources', { token, server: second });
      const subscribe = (type: string, names: string[], n: number) => st.send({ ...(n === 0 ? { node: node() } : {}), type_url: type, resource_names_subscribe: names, initial_resource_versions: held[type] });
      subscribe(TYPE_URL.listener, [LISTENER], 0);
      subscribe(TYPE_URL.route, [LISTENER], 1);
      subscribe(TYPE_URL.cluster, ['apps/echo-a:50051'], 2);
      subscribe(TYPE_URL.endpoint, ['apps/echo-a:50051'], 3);
      // versions are digests of the encodings, the same on every process: nothing is re-sent
      expect(await st.quiet()).toBe(true);
      await service('echo-a', ['10.0.0.1', '10.0.0.4']);
      const e = await st.next();
      expect([e.type_url, names(e), e.removed_resources]).toEqual([TYPE_URL.endpoint, ['apps/echo-a:50051'], []]);
      st.send({ type_url: e.type_url, response_nonce: e.nonce });
      expect(await st.quiet()).toBe(true);
      st.close();
    } finally {
      await second.close();
    }
  }, 180_000);

  it('a Gateway deleted: its resources are removed', async () => {
    const st = open('DeltaAggregatedResources', { token });
    st.send({ node: node(), type_url: TYPE_URL.listener, resource_names_subscribe: [LISTENER] });
    const l = await st.next();
    st.send({ type_url: TYPE_URL.listener, response_nonce: l.nonce });
    expect(names(l)).toEqual([LISTENER]);
    expect((await s.api('DELETE', `/api/v1/namespaces/${NS}/gateways/gw`)).status).toBe(200);
    const gone = await st.next();
    expect([gone.type_url, gone.removed_resources]).toEqual([TYPE_URL.listener, [LISTENER]]);
    st.close();
  });
});
