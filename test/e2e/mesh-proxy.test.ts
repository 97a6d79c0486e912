// The 85 requests of the mesh (GAMMA) conformance corpus as real traffic, each sent through
// `switchyard proxy --mesh NS` for the namespace of its client, as a sidecar would carry it. The
// mesh workloads (echo-v1, echo-v2) are echo pods on loopback (test/support/echo-pod.ts) that
// EndpointSlices point at; Services have cluster IPs as kube-apiserver would give them. A request to
// a Service is sent to its cluster IP (absolute-form HTTP, or a CONNECT tunnel for gRPC over h2c)
// with the Host the entry names; a request to a pod goes to the pod's address. What the client
// observes is checked as upstream's mesh comparator checks it (status, response headers, the
// headers the backend received, which workload answered, weighted shares over 500 requests).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { needs, skippable } from '../support/database';
import { mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { startProxyProcess, type ProxyProcess } from '../support/proxy-process';
import { kindInfo } from '../../src/core/model/kinds';
import type { K8sObject } from '../../src/core/model/objects';
import { startEchoPod, type EchoPod, type PodAnswer } from '../support/echo-pod';
import { checkObserved, type Observed } from '../support/conformance-traffic';
import { loadMeshBase, loadMeshCases, meshRequests, MESH_GRPC_METHOD, withClusterIPs, workloadOf } from '../support/mesh-conformance';

const need = needs({ pg: true });
const MESH = 'gateway-conformance-mesh';
const CLIENT_NAMESPACES = [MESH, 'gateway-conformance-mesh-consumer'];
const WORKLOADS = { 'echo-v1': { version: 'v1' }, 'echo-v2': { version: 'v2' } } as const;
const TARGET_PORTS = [8080, 8443, 9090, 7070];
const cases = loadMeshCases();
const clusterIPs = new Map<string, string>();

let s: TestServer;
const pods = new Map<string, EchoPod>();
const proxies = new Map<string, { process: ProxyProcess; port: number }>();
let passed = 0;
const failed: string[] = [];

const pathOf = (o: { kind: string; metadata: { namespace?: string; name: string } }) => {
  const info = kindInfo(o.kind)!;
  return info.scope === 'Cluster' ? `/api/v1/${info.plural}/${o.metadata.name}` : `/api/v1/namespaces/${o.metadata.namespace}/${info.plural}/${o.metadata.name}`;
};

async function put(o: K8sObject): Promise<void> {
  const r = await s.api('PUT', pathOf(o), o);
  if (r.status !== 200 && r.status !== 201) throw new Error(`PUT ${pathOf(o)}: ${r.status} ${r.text}`);
}

/** A Service's EndpointSlices: one per workload pod it selects, its ports by the Service's port names. */
function slicesOf(svc: any): K8sObject[] {
  const selector: Record<string, string> = svc.spec?.selector ?? {};
  return Object.entries(WORKLOADS).filter(([, w]) => selector.app === 'echo' && (!selector.version || selector.version === w.version)).map(([name]) => {
    const pod = pods.get(name)!;
    return {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: `${svc.metadata.name}-${name}`, namespace: svc.metadata.namespace, labels: { 'kubernetes.io/service-name': svc.metadata.name } },
      addressType: 'IPv4',
      ports: svc.spec.ports.map((p: any) => ({ name: p.name, protocol: 'TCP', port: pod.ports.get(typeof p.targetPort === 'number' ? p.targetPort : p.port) })),
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    } as unknown as K8sObject;
  });
}

/** Waits until the proxy of a namespace serves the mesh table the API holds now. */
async function proxyCaughtUp(ns: string): Promise<void> {
  const want = (await s.api('GET', `/api/v1/namespaces/${ns}/mesh/snapshot`)).body.version;
  const admin = proxies.get(ns)!.process.admin;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await fetch(`${admin}/readyz`).then((x) => x.json() as Promise<{ version: number | null }>).catch(() => ({ version: null }));
    if (r.version !== null && r.version >= want) return;
    if (Date.now() > deadline) throw new Error(`the proxy of ${ns} did not reach version ${want}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** Where the client connects: a Service's cluster IP, or the pod's own address. */
function destinationOf(r: any): string {
  if (r.target.kind === 'Pod') return `127.0.0.1:${pods.get(workloadOf(r))!.ports.get(r.target.port)}`;
  return `${clusterIPs.get(`${r.target.namespace}/${r.target.name}`)}:${r.target.port}`;
}

function hostOf(r: any): string {
  const h = String(r.request.host ?? 'echo');
  return r.target.kind === 'Pod' ? h.replace('{POD_IP}', '127.0.0.1') : h;
}

function parseEcho(body: Buffer): PodAnswer | undefined {
  try {
    const j = JSON.parse(body.toString('utf8'));
    return j && typeof j.pod === 'string' ? j : undefined;
  } catch {
    return undefined;
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** An HTTP/1.1 request in absolute form through the proxy, as an HTTP proxy client sends it. */
function viaProxyH1(proxyPort: number, r: any): Promise<Observed> {
  const q = r.request;
  const query = q.rawQuery !== undefined ? q.rawQuery : q.query ? new URLSearchParams(q.query).toString() : '';
  const path = `${q.path ?? '/'}${query ? `?${query}` : ''}`;
  return new Promise((resolve) => {
    const req = http.request({
      host: '127.0.0.1', port: proxyPort, agent, method: q.method ?? 'GET', path: `http://${destinationOf(r)}${path}`,
      headers: { host: hostOf(r), ...Object.fromEntries(Object.entries(q.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)])) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: Object.fromEntries(Object.entries(res.headersDistinct).map(([k, v]) => [k, (v ?? []).join(',')])), echo: parseEcho(Buffer.concat(chunks)) }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
    req.on('error', (e) => resolve({ rejected: (e as NodeJS.ErrnoException).code ?? e.message, headers: {} }));
    req.end();
  });
}

/** A CONNECT tunnel to the destination through the proxy. */
function tunnel(proxyPort: number, destination: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxyPort, '127.0.0.1', () => socket.write(`CONNECT ${destination} HTTP/1.1\r\nHost: ${destination}\r\n\r\n`));
    let buf = Buffer.alloc(0);
    const onData = (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      if (!/^HTTP\/1\.1 200/.test(buf.toString('latin1'))) return reject(new Error(`CONNECT ${destination}: ${buf.toString('latin1').split('\r\n')[0]}`));
      if (buf.length > end + 4) socket.unshift(buf.subarray(end + 4));
      resolve(socket);
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

/** A gRPC unary call over h2c inside a CONNECT tunnel, as a gRPC client behind an HTTP proxy makes it. */
async function viaProxyGrpc(proxyPort: number, r: any, session?: http2.ClientHttp2Session): Promise<{ observed: Observed; session: http2.ClientHttp2Session }> {
  const socket = session ? undefined : await tunnel(proxyPort, destinationOf(r));
  const h2 = session ?? http2.connect(`http://${hostOf(r)}`, { createConnection: () => socket! });
  const observed = await new Promise<Observed>((resolve) => {
    const req = h2.request({
      ':method': 'POST', ':path': MESH_GRPC_METHOD, ':authority': hostOf(r), 'content-type': 'application/grpc', te: 'trailers',
      ...Object.fromEntries(Object.entries(r.request.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)])),
    });
    let status = 0;
    let headers: Record<string, string> = {};
    let grpcStatus: number | undefined;
    const chunks: Buffer[] = [];
    req.on('response', (h) => {
      status = Number(h[':status']);
      headers = Object.fromEntries(Object.entries(h).filter(([k]) => !k.startsWith(':')).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));
      if (h['grpc-status'] !== undefined) grpcStatus = Number(h['grpc-status']);
    });
    req.on('trailers', (h) => { if (h['grpc-status'] !== undefined) grpcStatus = Number(h['grpc-status']); });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', (e) => resolve({ rejected: e.message, headers: {} }));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      resolve({ status, headers, grpcStatus, echo: body.length >= 5 ? parseEcho(body.subarray(5, 5 + body.readUInt32BE(1))) : undefined });
    });
    req.end(Buffer.alloc(5));
  });
  return { observed, session: h2 };
}

/** One entry: sent once, or 500 times for a weighted one; the failures, none when it passes. */
async function run(r: any): Promise<string[]> {
  const proxyPort = proxies.get(r.client.namespace)!.port;
  const e = { ...r.expect, ...(r.notCheckedUpstream?.rewrittenPath !== undefined ? { rewrittenPath: r.notCheckedUpstream.rewrittenPath } : {}) };
  const grpc = r.request.protocol === 'grpc';
  if (e.distribution) {
    const counts = new Map<string, number>();
    const N = 500;
    let session: http2.ClientHttp2Session | undefined;
    for (let i = 0; i < N; i++) {
      let o: Observed;
      if (grpc) {
        const got = await viaProxyGrpc(proxyPort, r, session);
        session = got.session;
        o = got.observed;
      } else o = await viaProxyH1(proxyPort, r);
      const who = o.echo ? o.echo.service : `status ${o.status ?? o.rejected}`;
      counts.set(who, (counts.get(who) ?? 0) + 1);
    }
    session?.close();
    const out: string[] = [];
    for (const who of counts.keys()) if (!(who in e.distribution)) out.push(`answered by ${who} ${counts.get(who)} times`);
    for (const [who, share] of Object.entries(e.distribution as Record<string, number>)) {
      const got = (counts.get(who) ?? 0) / N;
      if (Math.abs(got - share) > (e.distributionTolerance ?? 0.05)) out.push(`share of ${who} ${got.toFixed(3)} (want ${share})`);
    }
    return out;
  }
  let o: Observed;
  if (grpc) {
    const got = await viaProxyGrpc(proxyPort, r);
    got.session.close();
    o = got.observed;
  } else o = await viaProxyH1(proxyPort, r);
  const q = r.request;
  const query = q.rawQuery !== undefined ? q.rawQuery : q.query ? new URLSearchParams(q.query).toString() : '';
  // a gRPC call answers HTTP 200 with grpc-status 0 (upstream's echo client reports 200 for it)
  const observed = grpc && o.grpcStatus === 0 ? { ...o, status: 200 } : o;
  return checkObserved({ ...q, protocol: grpc ? 'grpc' : 'http' }, grpc ? { ...e, statusCode: undefined, grpcCode: e.statusCode === 200 ? 'OK' : undefined } : e, observed,
    { path: `${q.path ?? '/'}${query ? `?${query}` : ''}` });
}

beforeAll(async () => {
  if (need.skip) return;
  s = await startTestServer({ rateLimitPerSecond: 100_000, rateLimitBurst: 100_000 });
  for (const name of Object.keys(WORKLOADS)) pods.set(name, await startEchoPod({ service: name, namespace: MESH, name: `${name}-0`, targetPorts: TARGET_PORTS, attempts: new Map() }));
  for (const o of withClusterIPs(loadMeshBase(), clusterIPs)) {
    if (o.kind === 'Service') clusterIPs.set(`${o.metadata.namespace}/${o.metadata.name}`, o.spec.clusterIP);
    await put(o);
    if (o.kind === 'Service') for (const slice of slicesOf(o)) await put(slice);
  }
  await reconciled(s, 45_000);
  for (const ns of CLIENT_NAMESPACES) {
    const token = await mintToken(s, { name: `mesh-${ns}`, role: 'proxy', mesh: ns });
    const p = await startProxyProcess(s.url, token, ['--mesh', ns, '--mesh-port', '0'], { ACCESS_LOG: 'off' });
    const port = Number(/"port":(\d+)/.exec(p.output())![1]);
    proxies.set(ns, { process: p, port });
  }
}, 120_000);

afterAll(async () => {
  console.log(`mesh conformance requests through switchyard proxy --mesh: ${passed} passed, ${failed.length} failed of 85`);
  agent.destroy();
  for (const { process } of proxies.values()) await process.stop();
  for (const p of pods.values()) await p.close();
  await s?.close();
});

describe.skipIf(need.skip)(skippable(need, 'mesh conformance as real traffic through switchyard proxy --mesh'), () => {
  it('finds the corpus', () => expect(cases.reduce((n, c) => n + meshRequests(c).length, 0)).toBe(85));

  for (const c of cases) {
    it(c.name, async () => {
      const manifests = withClusterIPs(c.manifests, clusterIPs);
      try {
        for (const o of manifests) await put(o);
        await reconciled(s, 45_000);
        for (const ns of CLIENT_NAMESPACES) await proxyCaughtUp(ns);
        const bad: string[] = [];
        for (const [i, r] of meshRequests(c).entries()) {
          const f = await run(r);
          if (f.length) {
            failed.push(`${c.name} ${i}`);
            bad.push(`${c.name} request ${i} (${r.request.protocol} ${r.request.path ?? ''} from ${r.client.namespace}): ${f.join('; ')}`);
          } else passed++;
        }
        expect(bad).toEqual([]);
      } finally {
        for (const o of [...manifests].reverse()) await s.api('DELETE', pathOf(o));
        await reconciled(s, 45_000);
      }
    }, 120_000);
  }

  it('finds Services by cluster DNS name too: <service>.<namespace>.svc.cluster.local, <service>.<namespace>, and <service> in the client\'s namespace', async () => {
    const port = proxies.get(MESH)!.port;
    for (const name of ['echo-v2.gateway-conformance-mesh.svc.cluster.local:80', 'echo-v2.gateway-conformance-mesh:80', 'echo-v2']) {
      const o = await new Promise<PodAnswer | undefined>((resolve) => {
        http.get({ host: '127.0.0.1', port, path: `http://${name}/by-name`, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (x) => chunks.push(x));
          res.on('end', () => resolve(parseEcho(Buffer.concat(chunks))));
        }).on('error', () => resolve(undefined));
      });
      expect(o?.service, name).toBe('echo-v2');
    }
  });
});
