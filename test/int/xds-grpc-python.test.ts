// The xDS server against the gRPC C core's xDS client (Debian's python3-grpcio, a real client no one
// here wrote): the same Gateway, GRPCRoute, Services and real gRPC backends on loopback as
// xds-grpc-js.test.ts, the client in a child process driven over stdin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, freePort, mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { runCli } from '../support/cli';
import { startEcho, type EchoBackend } from '../support/grpc-echo';

const PYTHON = '/usr/bin/python3';
const available = spawnSync(PYTHON, ['-c', 'import grpc'], { stdio: 'ignore' }).status === 0;
const SCRIPT = fileURLToPath(new URL('../support/xds_python_client.py', import.meta.url));

let s: TestServer;
let a: EchoBackend;
let b: EchoBackend;
let c: EchoBackend;
let py: ChildProcessWithoutNullStreams;
let lines: AsyncIterator<string>;
const NS = 'apps';

type Result = { backend?: string; code?: string; details?: string };

async function put(path: string, body: Record<string, unknown>): Promise<void> {
  const r = await s.api('PUT', path, body);
  if (r.status >= 300) throw new Error(`PUT ${path}: ${r.status} ${r.text}`);
}
const service = (name: string) => put(`/api/v1/namespaces/${NS}/services/${name}`, { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ name: 'grpc', port: 50051 }] } });
const slice = (service: string, backend: EchoBackend) => put(`/api/v1/namespaces/${NS}/endpointslices/${service}-1`, {
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `${service}-1`, labels: { 'kubernetes.io/service-name': service } },
  addressType: 'IPv4', ports: [{ name: 'grpc', port: backend.port }], endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
});
const route = (rules: unknown[]) => put(`/api/v1/namespaces/${NS}/grpcroutes/echo`, {
  apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GRPCRoute', metadata: { name: 'echo' },
  spec: { parentRefs: [{ name: 'gw' }], hostnames: ['echo.example.com'], rules },
});

async function calls(path: string, n: number): Promise<Result[]> {
  py.stdin.write(`call ${path} ${n}\n`);
  const { value, done } = await lines.next();
  if (done) throw new Error('the python client ended');
  return JSON.parse(value);
}

async function until(path: string, ok: (r: Result) => boolean, ms = 20_000): Promise<Result> {
  const deadline = Date.now() + ms;
  let last: Result[] = [];
  do {
    last = await calls(path, 1);
    if (ok(last[0])) return last[0];
    await new Promise((r) => setTimeout(r, 100));
  } while (Date.now() < deadline);
  throw new Error(`no call to ${path} reached the expected outcome within ${ms} ms; last: ${JSON.stringify(last)}`);
}

async function untilListed(ok: (item: any) => boolean, ms = 20_000): Promise<any> {
  const deadline = Date.now() + ms;
  let item: any;
  do {
    const r = await s.api('GET', `/api/v1/namespaces/${NS}/gateways/gw/proxies`);
    item = r.body.items.find((i: any) => i.id === 'xds:c-core-test-node');
    if (ok(item)) return item;
    await new Promise((r) => setTimeout(r, 100));
  } while (Date.now() < deadline);
  throw new Error(`the node did not reach the expected state within ${ms} ms; last: ${JSON.stringify(item)}`);
}

const tally = (rs: Result[]) => rs.reduce<Record<string, number>>((m, r) => ((m[r.backend ?? r.code ?? '?'] = (m[r.backend ?? r.code ?? '?'] ?? 0) + 1), m), {});

if (!available) console.log(`skipped: the gRPC C core's xDS client tests (${PYTHON} cannot import grpc: apt-get install python3-grpcio)`);
describe.skipIf(!available)('the gRPC C core (python3-grpcio) against the xDS server', () => {
  beforeAll(async () => {
    s = await startTestServer({ xdsPort: await freePort() });
    [a, b, c] = await Promise.all([startEcho('a'), startEcho('b'), startEcho('c')]);
    await put('/api/v1/gatewayclasses/switchyard', { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'switchyard' }, spec: { controllerName: 'switchyard.dev/gateway-controller' } });
    await put(`/api/v1/namespaces/${NS}/gateways/gw`, {
      apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'gw' },
      spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'grpc', protocol: 'HTTP', port: 8080 }] },
    });
    await service('echo-a');
    await service('echo-b');
    await slice('echo-a', a);
    await slice('echo-b', b);
    await route([
      { matches: [{ method: { service: 'echo.Echo', method: 'Ping' } }], backendRefs: [{ name: 'echo-a', port: 50051 }] },
      { matches: [{ method: { service: 'echo.Echo', method: 'Other' } }], backendRefs: [{ name: 'echo-b', port: 50051 }] },
    ]);
    await reconciled(s);
    const token = await mintToken(s, { name: 'gw-proxy', role: 'proxy', gateways: [`${NS}/gw`] });
    py = spawn(PYTHON, [SCRIPT, 'xds:///echo.example.com:8080'], {
      env: {
        ...process.env,
        GRPC_XDS_BOOTSTRAP_CONFIG: JSON.stringify({
          xds_servers: [{ server_uri: `127.0.0.1:${s.running.xds!.port}`, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
          node: { id: 'c-core-test-node', cluster: `${NS}/gw`, locality: {}, metadata: { 'switchyard.dev/token': token } },
        }),
      },
    });
    py.stderr.on('data', (d) => process.env.TEST_LOG_LEVEL && process.stderr.write(d));
    lines = createInterface({ input: py.stdout })[Symbol.asyncIterator]();
    expect(JSON.parse((await lines.next()).value)).toEqual({ ready: true });
  }, 180_000);

  afterAll(async () => {
    if (py && py.exitCode === null) {
      py.stdin.end('quit\n');
      await new Promise((r) => { const t = setTimeout(() => { py.kill(); r(null); }, 5000); py.once('exit', () => { clearTimeout(t); r(null); }); });
    }
    await Promise.all([a, b, c].filter(Boolean).map((x) => x.close()));
    await s?.close();
  });

  it('routes calls by the GRPCRoute; a call no rule matches is UNIMPLEMENTED', async () => {
    expect((await until('/echo.Echo/Ping', (r) => !!r.backend)).backend).toBe('a');
    expect(await calls('/echo.Echo/Other', 3)).toEqual([{ backend: 'b' }, { backend: 'b' }, { backend: 'b' }]);
    expect((await calls('/other.Svc/Call', 1))[0].code).toBe('UNIMPLEMENTED');
  });

  it('follows a route change: weights split the calls', async () => {
    await route([
      { matches: [{ method: { service: 'echo.Echo', method: 'Ping' } }], backendRefs: [{ name: 'echo-a', port: 50051, weight: 50 }, { name: 'echo-b', port: 50051, weight: 50 }] },
      { matches: [{ method: { service: 'echo.Echo', method: 'Other' } }], backendRefs: [{ name: 'echo-b', port: 50051 }] },
    ]);
    await until('/echo.Echo/Ping', (r) => r.backend === 'b');
    const counts = tally(await calls('/echo.Echo/Ping', 200));
    expect(Object.keys(counts).sort()).toEqual(['a', 'b']);
    expect(counts.a).toBeGreaterThan(60);
    expect(counts.b).toBeGreaterThan(60);
  });

  it('follows an endpoint change, and a removed backend is answered UNAVAILABLE', async () => {
    await route([
      { matches: [{ method: { service: 'echo.Echo', method: 'Ping' } }], backendRefs: [{ name: 'echo-a', port: 50051 }] },
      { matches: [{ method: { service: 'echo.Echo', method: 'Other' } }], backendRefs: [{ name: 'echo-b', port: 50051 }] },
    ]);
    await until('/echo.Echo/Ping', (r) => r.backend === 'a');
    await slice('echo-a', c);
    await until('/echo.Echo/Ping', (r) => r.backend === 'c');
    expect((await s.api('DELETE', `/api/v1/namespaces/${NS}/services/echo-b`)).status).toBe(200);
    expect((await until('/echo.Echo/Other', (r) => !r.backend)).code).toBe('UNAVAILABLE');
    expect(await calls('/echo.Echo/Ping', 2)).toEqual([{ backend: 'c' }, { backend: 'c' }]);
  });

  it('a route the client cannot take: it NACKs, shows NACKED with its error in proxies and proxy-status, keeps what it had; the next change is taken', async () => {
    const ping = { matches: [{ method: { service: 'echo.Echo', method: 'Ping' } }], backendRefs: [{ name: 'echo-a', port: 50051 }] };
    await route([ping]);
    const served = (await until('/echo.Echo/Ping', (r) => !!r.backend)).backend;
    await untilListed((i) => i?.state === 'SYNCED');
    const nacks = async () => Number(/switchyard_xds_answers_total\{type="route",answer="NACK"\} (\d+)/.exec(await (await fetch(`${s.url}/metrics`)).text())?.[1] ?? 0);
    const nacksBefore = await nacks();
    // a valid Gateway API header match whose pattern RE2 takes, but which the C core's RE2 cannot
    // build within its memory budget (each \\pL is hundreds of UTF-8 instructions): the client refuses
    // the route configuration as a whole
    await route([ping, { matches: [{ method: { service: 'echo.Echo', method: 'Nack' }, headers: [{ type: 'RegularExpression', name: 'x-env', value: '\\pL{1000}' }] }], backendRefs: [{ name: 'echo-a', port: 50051 }] }]);
    const nacked = await untilListed((i) => i?.state === 'NACKED');
    expect(nacked.error).toMatch(/^route NACKED: .*Invalid regex string specified in matcher/);
    expect(nacked.xds.types.route.nacked.error).toMatch(/Invalid regex string/);
    expect(nacked.xds.types.route.acked).toBeDefined();
    expect(await nacks()).toBe(nacksBefore + 1);
    // the client keeps the routes it accepted: the refused rule's method is still unrouted
    expect((await calls('/echo.Echo/Nack', 1))[0].code).toBe('UNIMPLEMENTED');
    expect((await calls('/echo.Echo/Ping', 1))[0].backend).toBe(served);
    // switchyard proxy-status shows it as an operator sees it
    const cli = await runCli(() => ({ SWITCHYARD_URL: s.url, SWITCHYARD_TOKEN: ADMIN_TOKEN, SWITCHYARD_NAMESPACE: NS }), ['proxy-status', 'gw']);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/xds:c-core-test-node .*NACKED .*route NACKED: .*Invalid regex string/);
    // the refused version is not pushed again (the client would refuse it again: one NACK only)
    await new Promise((r) => setTimeout(r, 1500));
    expect(await nacks()).toBe(nacksBefore + 1);
    // the next change is pushed and taken
    await route([ping, { matches: [{ method: { service: 'echo.Echo', method: 'Nack' }, headers: [{ type: 'RegularExpression', name: 'x-env', value: '\\pL+' }] }], backendRefs: [{ name: 'echo-a', port: 50051 }] }]);
    await untilListed((i) => i?.state === 'SYNCED' && !i.error);
    expect(await nacks()).toBe(nacksBefore + 1);
  });

  it('a Gateway deleted: its listener is withdrawn and calls fail UNAVAILABLE', async () => {
    expect((await s.api('DELETE', `/api/v1/namespaces/${NS}/gateways/gw`)).status).toBe(200);
    expect((await until('/echo.Echo/Ping', (r) => !r.backend)).code).toBe('UNAVAILABLE');
  });
});
