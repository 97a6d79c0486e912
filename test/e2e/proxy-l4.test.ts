// The reference proxy's stream listeners on real sockets: one port carrying an HTTPS listener, a
// TLS passthrough listener and a TLS terminate listener (TLSRouteModeMixed), dispatched by the SNI
// of each ClientHello (read in pieces); TCP and UDP listeners on the same port number; weights (an
// unusable backend's share refused), endpoints round-robin, UDP sessions that keep their endpoint
// until they idle out; established connections that keep their backend across a swap and outlive
// their listener; frontend client-certificate validation per port (required, or insecure
// fallback); a UDP port it cannot bind reported with the last good table kept, then applied once it
// is free; an access log line per connection; SIGTERM that stops accepting and lets an open
// connection finish.
import dgram from 'node:dgram';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { startEchoBackend, type EchoBackend } from '../support/echo-backend';
import { startProxyProcess, type ProxyProcess } from '../support/proxy-process';
import { startTcpEcho, startUdpEcho, streamClient, tcpConnect, udpClient, type StreamBackend, type StreamClient } from '../support/stream-backends';
import { TEST_CERT, TEST_KEY } from '../support/tls';
import { CLIENT, CLIENT_CA_CERT, PASSTHROUGH_BACKEND, STRANGER } from '../support/l4-certs';

const GW = 'gateway.networking.k8s.io/v1';
const ALPHA = 'gateway.networking.k8s.io/v1alpha2';
// listener ports + OFFSET stay below the ephemeral range (32768 up on Linux) and the ports test services
// pick (20000 up): an outgoing connection holding the port, on this machine or another test's, kept a listener unbound
const OFFSET = 1000 + Math.floor(Math.random() * 10000);
const UDP_IDLE_MS = 1500;

let s: TestServer;
let proxy: ProxyProcess;
const closers: (() => Promise<void>)[] = [];

async function put(path: string, body: unknown): Promise<void> {
  const r = await s.api('PUT', path, body);
  expect([200, 201], `${path}: ${JSON.stringify(r.body)}`).toContain(r.status);
}

/** A Service whose EndpointSlice points at `ports` on loopback. */
async function service(name: string, ports: number[], protocol: 'TCP' | 'UDP' = 'TCP'): Promise<void> {
  await put(`/api/v1/namespaces/app/services/${name}`, { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'p', port: 7000, protocol }] } });
  // one slice per endpoint: an EndpointSlice has one port list for all its endpoints
  for (const [i, port] of ports.entries()) {
    await put(`/api/v1/namespaces/app/endpointslices/${name}-${i}`, {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'p', port, protocol }],
    });
  }
}

async function tcpEcho(label: string, secure?: { cert: string; key: string }): Promise<StreamBackend> {
  const b = await startTcpEcho(label, secure);
  closers.push(() => b.close());
  return b;
}

async function udpEcho(label: string): Promise<StreamBackend> {
  const b = await startUdpEcho(label);
  closers.push(() => b.close());
  return b;
}

const all = { namespaces: { from: 'All' } };
const LISTENERS = [
  { name: 'web', protocol: 'HTTPS', port: 443, hostname: 'web.example.com', tls: { mode: 'Terminate', certificateRefs: [{ name: 'gw-cert' }] }, allowedRoutes: all },
  { name: 'pass', protocol: 'TLS', port: 443, hostname: 'pass.example.com', tls: { mode: 'Passthrough' }, allowedRoutes: all },
  { name: 'pass-split', protocol: 'TLS', port: 443, hostname: 'split.example.com', tls: { mode: 'Passthrough' }, allowedRoutes: all },
  { name: 'term', protocol: 'TLS', port: 443, hostname: 'term.example.com', tls: { mode: 'Terminate', certificateRefs: [{ name: 'gw-cert' }] }, allowedRoutes: all },
  { name: 'tcp', protocol: 'TCP', port: 9000, allowedRoutes: all },
  { name: 'udp', protocol: 'UDP', port: 9000, allowedRoutes: all },
  { name: 'split', protocol: 'TCP', port: 9001, allowedRoutes: all },
  // frontend client-certificate validation, per port: 8443 valid only, 8444 insecure fallback
  { name: 'valid', protocol: 'HTTPS', port: 8443, hostname: 'fv.example.com', tls: { mode: 'Terminate', certificateRefs: [{ name: 'gw-cert' }] }, allowedRoutes: all },
  { name: 'fallback', protocol: 'HTTPS', port: 8444, hostname: 'fv.example.com', tls: { mode: 'Terminate', certificateRefs: [{ name: 'gw-cert' }] }, allowedRoutes: all },
];
const caRef = { group: '', kind: 'ConfigMap', name: 'client-ca' };
const FRONTEND = {
  default: {},
  perPort: [
    { port: 8443, tls: { validation: { caCertificateRefs: [caRef], mode: 'AllowValidOnly' } } },
    { port: 8444, tls: { validation: { caCertificateRefs: [caRef], mode: 'AllowInsecureFallback' } } },
  ],
};

async function gateway(listeners: unknown[]): Promise<void> {
  await put('/api/v1/namespaces/infra/gateways/l4', { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners, tls: { frontend: FRONTEND } } });
}

function parent(section: string) {
  return { parentRefs: [{ name: 'l4', namespace: 'infra', sectionName: section }] };
}

async function tcpRoute(name: string, section: string, backendRefs: unknown[]): Promise<void> {
  await put(`/api/v1/namespaces/app/tcproutes/${name}`, { apiVersion: ALPHA, kind: 'TCPRoute', spec: { ...parent(section), rules: [{ backendRefs }] } });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function readyz(): Promise<any> {
  return (await fetch(`${proxy.admin}/readyz`)).json();
}

async function until<T>(read: () => Promise<T>, want: (v: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let got: T | undefined;
  while (Date.now() < deadline) {
    got = await read();
    if (want(got)) return got;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what}: still ${JSON.stringify(got)} after ${timeoutMs} ms\n${proxy?.output().slice(-3000)}`);
}

async function snapshotVersion(): Promise<number> {
  return (await s.api('GET', '/api/v1/namespaces/infra/gateways/l4/snapshot')).body.version;
}

/** Waits until the proxy serves the Gateway's current snapshot. */
async function proxySynced(): Promise<void> {
  await reconciled(s);
  const want = await snapshotVersion();
  await until(async () => (await readyz()).gateways[0]?.version, (v) => v === want, 'the version the proxy serves');
}

/**
 * A connection carrying what a TLS client writes five bytes at a time, a few milliseconds apart:
 * the proxy gets the ClientHello in many reads.
 */
function trickle(raw: net.Socket): Duplex {
  raw.setNoDelay(true);
  let chain = Promise.resolve();
  const d = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, cb) {
      chain = chain.then(async () => {
        for (let i = 0; i < chunk.length; i += 5) {
          raw.write(chunk.subarray(i, i + 5));
          await new Promise((r) => setTimeout(r, 2));
        }
      });
      void chain.then(() => cb());
    },
    final(cb) {
      raw.end();
      cb();
    },
    destroy(e, cb) {
      raw.destroy();
      cb(e);
    },
  });
  raw.on('data', (c) => d.push(c));
  raw.on('end', () => d.push(null));
  raw.on('error', (e) => d.destroy(e));
  return d;
}

/** A TLS connection to the mixed port with this SNI; resolves once the handshake is done. */
function tlsOpen(servername: string, opts: { trickle?: boolean; alpn?: string[] } = {}): Promise<{ client: StreamClient; subject: string; tls: tls.TLSSocket }> {
  return new Promise((resolve, reject) => {
    const raw = net.connect({ host: '127.0.0.1', port: 443 + OFFSET });
    const socket = tls.connect({ socket: opts.trickle ? trickle(raw) as unknown as net.Socket : raw, servername, rejectUnauthorized: false, ...(opts.alpn ? { ALPNProtocols: opts.alpn } : {}) }, () => {
      resolve({ client: streamClient(socket), subject: String(socket.getPeerCertificate().subject?.CN ?? ''), tls: socket });
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('closed before the handshake')));
  });
}

beforeAll(async () => {
  s = await startTestServer();
  await put('/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  await put('/api/v1/namespaces/infra/secrets/gw-cert', { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', data: { 'tls.crt': Buffer.from(TEST_CERT).toString('base64'), 'tls.key': Buffer.from(TEST_KEY).toString('base64') } });
  await put('/api/v1/namespaces/infra/configmaps/client-ca', { apiVersion: 'v1', kind: 'ConfigMap', data: { 'ca.crt': CLIENT_CA_CERT } });
  await gateway(LISTENERS);

  const web: EchoBackend = await startEchoBackend('app', 'web');
  closers.push(() => web.close());
  await put('/api/v1/namespaces/app/services/web', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'http', port: 80 }] } });
  await put('/api/v1/namespaces/app/endpointslices/web-1', {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'http', port: web.port }],
  });
  await put('/api/v1/namespaces/app/httproutes/web', { apiVersion: GW, kind: 'HTTPRoute', spec: { ...parent('web'), rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] } });
  await put('/api/v1/namespaces/app/httproutes/fv', { apiVersion: GW, kind: 'HTTPRoute', spec: { parentRefs: [{ name: 'l4', namespace: 'infra', sectionName: 'valid' }, { name: 'l4', namespace: 'infra', sectionName: 'fallback' }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] } });

  await service('passthrough', [(await tcpEcho('passthrough', { cert: PASSTHROUGH_BACKEND.crt, key: PASSTHROUGH_BACKEND.key })).port]);
  await service('plain', [(await tcpEcho('plain')).port]);
  await put('/api/v1/namespaces/app/tlsroutes/pass', { apiVersion: GW, kind: 'TLSRoute', spec: { ...parent('pass'), hostnames: ['pass.example.com'], rules: [{ backendRefs: [{ name: 'passthrough', port: 7000 }] }] } });
  await put('/api/v1/namespaces/app/tlsroutes/pass-split', { apiVersion: GW, kind: 'TLSRoute', spec: { ...parent('pass-split'), hostnames: ['split.example.com'], rules: [{ backendRefs: [{ name: 'passthrough', port: 7000, weight: 1 }, { name: 'missing', port: 7000, weight: 1 }] }] } });
  await put('/api/v1/namespaces/app/tlsroutes/term', { apiVersion: GW, kind: 'TLSRoute', spec: { ...parent('term'), hostnames: ['term.example.com'], rules: [{ backendRefs: [{ name: 'plain', port: 7000 }] }] } });

  await service('pool', [(await tcpEcho('pool-0')).port, (await tcpEcho('pool-1')).port]);
  await service('other', [(await tcpEcho('other')).port]);
  await tcpRoute('tcp', 'tcp', [{ name: 'pool', port: 7000 }]);
  await tcpRoute('split', 'split', [{ name: 'plain', port: 7000, weight: 1 }, { name: 'missing', port: 7000, weight: 1 }]);

  const u0 = await udpEcho('upool-0');
  const u1 = await udpEcho('upool-1');
  udp = [u0, u1];
  await service('upool', [u0.port, u1.port], 'UDP');
  await put('/api/v1/namespaces/app/udproutes/udp', { apiVersion: ALPHA, kind: 'UDPRoute', spec: { ...parent('udp'), rules: [{ backendRefs: [{ name: 'upool', port: 7000 }] }] } });

  await reconciled(s);
  const token = await mintToken(s, { name: 'l4-proxy', role: 'proxy', gateways: ['infra/l4'] });
  proxy = await startProxyProcess(s.url, token, ['--gateway', 'infra/l4', '--port-offset', String(OFFSET), '--id', 'l4-1', '--udp-idle-ms', String(UDP_IDLE_MS)]);
  await proxySynced();
}, 120_000);

let udp: StreamBackend[] = [];

afterAll(async () => {
  await proxy?.stop('SIGKILL');
  await s?.close();
  await Promise.all(closers.map((c) => c()));
});

describe('the reference proxy\'s TLS, TCP and UDP listeners', () => {
  it('is given listeners of every kind on one TLS port, all accepted', async () => {
    const gw = (await s.api('GET', '/api/v1/namespaces/infra/gateways/l4')).body;
    for (const l of gw.status.listeners) expect(l.conditions.find((c: { type: string }) => c.type === 'Programmed')?.status, l.name).toBe('True');
    expect((await readyz()).ports.map((p: { port: number; kind: string }) => `${p.port}/${p.kind}`).sort()).toEqual(['443/tls', '8443/tls', '8444/tls', '9000/tcp', '9000/udp', '9001/tcp']);
  });

  it('passes a TLS connection through by its SNI, read from a ClientHello that arrives in pieces: the client talks to the backend\'s own certificate', async () => {
    for (const trickled of [false, true]) {
      const c = await tlsOpen('pass.example.com', { trickle: trickled });
      try {
        expect(c.subject).toBe('pass.example.com');
        expect(await c.client.ask('hello')).toBe('passthrough:hello');
      } finally {
        c.client.close();
      }
    }
  });

  it('refuses the share of passthrough connections that falls on an unusable backend, and passes the rest through', async () => {
    const N = 100;
    const subjects: string[] = [];
    for (let i = 0; i < N; i++) {
      const c = await tlsOpen('split.example.com').catch(() => undefined); // reset before the handshake
      if (!c) continue;
      subjects.push(c.subject);
      c.client.close();
    }
    const through = subjects.length;
    expect(new Set(subjects)).toEqual(new Set(['pass.example.com']));
    // each share is 1/2; 100 draws stay within 6 standard deviations of it
    expect(Math.abs(through - N / 2), `${through} of ${N} passed through`).toBeLessThan(6 * Math.sqrt(N / 4));
  });

  it('terminates a TLSRoute\'s TLS with the listener\'s certificate and carries the plaintext stream to the backend', async () => {
    const c = await tlsOpen('term.example.com', { trickle: true });
    try {
      expect(c.tls.getPeerCertificate().fingerprint256).toBe(new X509Certificate(TEST_CERT).fingerprint256);
      expect(await c.client.ask('ping')).toBe('plain:ping');
    } finally {
      c.client.close();
    }
  });

  it('hands an HTTPS listener\'s connection on that port to the HTTPS server, and refuses a server name no listener takes', async () => {
    const c = await tlsOpen('web.example.com', { alpn: ['http/1.1'] });
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ createConnection: () => c.tls, path: '/hello', headers: { host: 'web.example.com' } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    c.tls.destroy();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ service: 'web', path: '/hello', host: 'web.example.com' });

    await expect(tlsOpen('nobody.example.com')).rejects.toThrow();
    // not TLS at all: refused as well
    const raw = await tcpConnectRaw(443 + OFFSET);
    raw.write('GET / HTTP/1.1\r\nHost: web.example.com\r\n\r\n');
    await new Promise((r) => raw.once('close', r));
  });

  it('forwards TCP connections round-robin over the backend\'s endpoints, each keeping its endpoint', async () => {
    const clients = [await tcpConnect(9000 + OFFSET), await tcpConnect(9000 + OFFSET)];
    try {
      const first = await Promise.all(clients.map((c) => c.ask('x')));
      expect(first.sort()).toEqual(['pool-0:x', 'pool-1:x']);
      for (const c of clients) {
        const again = await c.ask('y');
        const twice = await c.ask('y');
        expect(again).toBe(twice);
      }
    } finally {
      for (const c of clients) c.close();
    }
  });

  it('refuses the share of TCP connections that falls on an unusable backend, and forwards the rest', async () => {
    const N = 200;
    let refused = 0;
    let forwarded = 0;
    for (let i = 0; i < N; i++) {
      try {
        const c = await tcpConnect(9001 + OFFSET);
        try {
          expect(await c.ask('w')).toBe('plain:w');
          forwarded++;
        } catch {
          refused++;
        } finally {
          c.close();
        }
      } catch {
        refused++;
      }
    }
    // each share is 1/2; 200 draws stay within 6 standard deviations of it
    expect(Math.abs(forwarded - N / 2), `${forwarded} forwarded, ${refused} refused`).toBeLessThan(6 * Math.sqrt(N / 4));
    expect(forwarded + refused).toBe(N);
  });

  it('keeps a UDP client\'s session on one endpoint, spreads sessions round-robin, and ends a session once it idles out', async () => {
    const seen0 = udp[0].connections();
    const seen1 = udp[1].connections();
    const a = await udpClient(9000 + OFFSET);
    const b = await udpClient(9000 + OFFSET);
    try {
      const ra = await a.ask('1');
      const rb = await b.ask('1');
      expect([ra, rb].sort()).toEqual(['upool-0:1', 'upool-1:1']);
      expect(await a.ask('2')).toBe(ra!.replace(':1', ':2'));
      expect(udp[0].connections() - seen0 + udp[1].connections() - seen1).toBe(2);
      await new Promise((r) => setTimeout(r, UDP_IDLE_MS * 2));
      // a new session: a new socket at the proxy, so a client address the backends have not seen
      expect(await a.ask('3')).toMatch(/^upool-[01]:3$/);
      expect(udp[0].connections() - seen0 + udp[1].connections() - seen1).toBe(3);
    } finally {
      a.close();
      b.close();
    }
  });

  it('keeps established TCP and TLS connections on the backend they chose across a swap, and after their listener is gone', async () => {
    const tcp = await tcpConnect(9000 + OFFSET);
    const pass = await tlsOpen('pass.example.com');
    try {
      const before = await tcp.ask('a');
      expect(before).toMatch(/^pool-[01]:a$/);
      await tcpRoute('tcp', 'tcp', [{ name: 'other', port: 7000 }]);
      await proxySynced();
      const fresh = await tcpConnect(9000 + OFFSET);
      expect(await fresh.ask('b')).toBe('other:b');
      fresh.close();
      expect(await tcp.ask('a')).toBe(before);

      // the TCP listener and the passthrough listener leave the Gateway: their ports stop accepting, their connections carry on
      await gateway(LISTENERS.filter((l) => l.name !== 'tcp' && l.name !== 'pass'));
      await proxySynced();
      await expect(tcpConnect(9000 + OFFSET)).rejects.toThrow();
      await expect(tlsOpen('pass.example.com')).rejects.toThrow();
      expect(await tcp.ask('a')).toBe(before);
      expect(await pass.client.ask('still')).toBe('passthrough:still');
    } finally {
      tcp.close();
      pass.client.close();
      await gateway(LISTENERS);
      await proxySynced();
    }
  });

  it('reports a UDP port it cannot bind, keeps the last good table, and applies the snapshot once the port is free', async () => {
    const blocker = dgram.createSocket('udp4');
    await new Promise<void>((r) => blocker.bind(9002 + OFFSET, '127.0.0.1', () => r()));
    try {
      await gateway([...LISTENERS, { name: 'udp2', protocol: 'UDP', port: 9002, allowedRoutes: all }]);
      await reconciled(s);
      const want = await snapshotVersion();
      const ready = await until(readyz, (r) => r.gateways[0].rejectedVersion === want, 'the version the proxy rejected');
      expect(ready.gateways[0].error).toMatch(new RegExp(`${9002 + OFFSET}/udp: EADDRINUSE`));
      expect(ready.gateways[0].version).toBeLessThan(want);
      const c = await tcpConnect(9000 + OFFSET);
      expect(await c.ask('z')).toBe('other:z');
      c.close();
      // once the port is free the same snapshot is tried again, with no new one from the API
      await new Promise<void>((r) => blocker.close(() => r()));
      const applied = await until(readyz, (r) => r.gateways[0].version === want, 'the version the proxy serves once the port is free');
      expect(applied.ports.map((p: { port: number; kind: string }) => `${p.port}/${p.kind}`)).toContain('9002/udp');
      expect(applied.gateways[0].error).toBeUndefined();
    } finally {
      await new Promise<void>((r) => blocker.close(() => r())).catch(() => undefined);
      await gateway(LISTENERS);
      await proxySynced();
    }
  });

  it('validates client certificates against the CA of the port\'s frontend validation: required (AllowValidOnly) or asked for only (AllowInsecureFallback)', async () => {
    const good = CLIENT;
    const stranger = STRANGER;
    /** GET / over HTTPS, with a client certificate or without */
    const get = (port: number, cert?: { crt: string; key: string }) => new Promise<{ status: number }>((resolve, reject) => {
      const socket = tls.connect({
        host: '127.0.0.1', port: port + OFFSET, servername: 'fv.example.com', rejectUnauthorized: false, ALPNProtocols: ['http/1.1'],
        ...(cert ? { cert: cert.crt, key: cert.key } : {}),
      });
      socket.once('secureConnect', () => {
        // with TLS 1.3 the server's verdict on the certificate comes after the client's handshake is done
        const req = http.request({ createConnection: () => socket, path: '/', headers: { host: 'fv.example.com' } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        });
        req.on('error', reject);
        req.end();
      });
      socket.once('error', reject);
      socket.once('close', () => reject(new Error('closed without an answer')));
    });
    expect((await get(8443, good)).status).toBe(200);
    await expect(get(8443)).rejects.toThrow();
    await expect(get(8443, stranger)).rejects.toThrow();
    for (const cert of [good, undefined, stranger]) expect((await get(8444, cert)).status, cert === good ? 'signed by the CA' : cert ? 'another CA' : 'no certificate').toBe(200);
  });

  it('counts the connections it forwards and refuses, and logs each one once it is over', async () => {
    const lines = proxy.output().split('\n').filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l));
    expect(lines.find((l) => l.protocol === 'TCP' && l.route === 'TCPRoute/app/tcp')).toMatchObject({ id: expect.any(String), gateway: 'infra/l4', listener: 'tcp', endpoint: expect.stringMatching(/^127\.0\.0\.1:\d+$/), bytesIn: expect.any(Number), bytesOut: expect.any(Number) });
    expect(lines.find((l) => l.protocol === 'TLS passthrough')).toMatchObject({ listener: 'pass', sni: 'pass.example.com', route: 'TLSRoute/app/pass' });
    expect(lines.find((l) => l.protocol === 'UDP')).toMatchObject({ listener: 'udp', route: 'UDPRoute/app/udp', datagramsIn: expect.any(Number) });

    const text = await (await fetch(`${proxy.admin}/metrics`)).text();
    expect(text).toMatch(/switchyard_proxy_connections_total\{gateway="infra\/l4",listener="pass",route="TLSRoute\/app\/pass",protocol="TLS",outcome="forwarded"\} [1-9]/);
    expect(text).toMatch(/switchyard_proxy_connections_total\{gateway="infra\/l4",listener="split",route="TCPRoute\/app\/split",protocol="TCP",outcome="refused"\} [1-9]/);
    expect(text).toMatch(/switchyard_proxy_connections_total\{gateway="infra\/l4",listener="udp",route="UDPRoute\/app\/udp",protocol="UDP",outcome="forwarded"\} [1-9]/);
  });

  it('on SIGTERM stops accepting, lets an open connection finish, then exits', async () => {
    const open = await tcpConnect(9000 + OFFSET);
    expect(await open.ask('1')).toBe('other:1');
    const exit = proxy.stop('SIGTERM');
    await until(async () => tcpConnect(9000 + OFFSET).then((c) => (c.close(), 'accepted'), () => 'refused'), (v) => v === 'refused', 'a new connection after SIGTERM', 5000);
    expect(await open.ask('2')).toBe('other:2');
    expect(proxy.child.exitCode).toBeNull();
    open.close();
    expect(await exit).toBe(0);
  });
});

function tcpConnectRaw(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: '127.0.0.1', port }, () => {
      sock.off('error', reject);
      sock.on('error', () => undefined); // the proxy's reset
      resolve(sock);
    });
    sock.once('error', reject);
  });
}
