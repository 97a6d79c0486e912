// Linkerd's Destination.Get on the gRPC server, against the real API and worker on the test's
// PostgreSQL and Redis, with a client generated from our protos: authentication and bad input,
// no_endpoints{exists} as the seed defines it, add/remove as EndpointSlices change and in the
// order they changed, by name and by cluster IP, many streams of one destination.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { freePort, mintToken, startTestServer, type TestServer } from '../support/server';
import { bearer, destinationClient, Follower, getStatus } from '../support/linkerd-client';

let s: TestServer;
let client: grpc.Client;
let token: string;
const followers: Follower[] = [];

async function put(path: string, body: Record<string, unknown>): Promise<void> {
  const r = await s.api('PUT', path, body);
  if (r.status >= 300) throw new Error(`PUT ${path}: ${r.status} ${r.text}`);
}
async function del(path: string): Promise<void> {
  const r = await s.api('DELETE', path);
  if (r.status >= 300) throw new Error(`DELETE ${path}: ${r.status} ${r.text}`);
}

const service = (ns: string, name: string, spec: Record<string, unknown> = {}) => put(`/api/v1/namespaces/${ns}/services/${name}`, {
  apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }], ...spec },
});
const slice = (ns: string, service: string, name: string, ips: string[], extra: Record<string, unknown> = {}) => put(`/api/v1/namespaces/${ns}/endpointslices/${name}`, {
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name, labels: { 'kubernetes.io/service-name': service } },
  addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }],
  endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })), ...extra,
});

function follow(path: string, t: string | null = token, context = '{"ns":"client"}'): Follower {
  const f = new Follower(() => client, { scheme: 'k8s', path, context_token: context }, () => bearer(t));
  followers.push(f);
  return f;
}

const PATH = 'web.apps.svc.cluster.local:80';

beforeAll(async () => {
  s = await startTestServer({ xdsPort: await freePort() });
  client = destinationClient(s.running.xds!.port);
  token = await mintToken(s, { name: 'mesh-client', role: 'proxy', mesh: 'client' });
}, 60_000);

afterAll(async () => {
  for (const f of followers) f.close();
  client?.close();
  await s?.close();
});

describe('Destination.Get: who may ask, and what', () => {
  it('answers UNAUTHENTICATED without a token or with an unknown one', async () => {
    const req = { path: PATH, context_token: '{"ns":"client"}' };
    expect(await getStatus(client, req, bearer(null))).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    expect(await getStatus(client, req, bearer('no-such-token'))).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
  });

  it('answers PERMISSION_DENIED to tokens that serve no mesh client, or not this namespace\'s', async () => {
    const req = { path: PATH, context_token: '{"ns":"client"}' };
    const dev = await mintToken(s, { name: 'dev', role: 'developer', namespaces: ['client'] });
    const gw = await mintToken(s, { name: 'gw-proxy', role: 'proxy', gateways: ['infra/edge'] });
    expect(await getStatus(client, req, bearer(dev))).toMatchObject({ code: grpc.status.PERMISSION_DENIED });
    expect(await getStatus(client, req, bearer(gw))).toMatchObject({ code: grpc.status.PERMISSION_DENIED });
    const other = await getStatus(client, { path: PATH, context_token: '{"ns":"elsewhere","nodeName":"n1"}' }, bearer(token));
    expect(other).toMatchObject({ code: grpc.status.PERMISSION_DENIED });
    expect(other.details).toContain('elsewhere');
  });

  it('answers INVALID_ARGUMENT, naming the problem, to a path or context token it cannot read', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ path: '' }, 'path is empty'],
      [{ path: 'web.apps.svc.cluster.local' }, 'port is missing'],
      [{ path: 'web.apps.svc.cluster.local:0' }, 'port must be'],
      [{ path: 'web.apps.svc.other.domain:80' }, 'not a Service of this cluster'],
      [{ path: 'a.web.apps.svc.cluster.local:80' }, 'want exactly'],
      [{ path: PATH, context_token: '{"ns":' }, 'context_token is not JSON'],
      [{ path: PATH, context_token: '{"ns":"Not_A_Namespace"}' }, 'not a namespace name'],
    ];
    for (const [req, words] of cases) {
      const r = await getStatus(client, req, bearer(token));
      expect(r.code, JSON.stringify(req)).toBe(grpc.status.INVALID_ARGUMENT);
      expect(r.details).toContain(words);
    }
  });

  it('takes the client namespace from the token when the request names none', async () => {
    const r = await getStatus(client, { path: 'nothing-here.apps.svc.cluster.local:80' }, bearer(token));
    expect(r.first).toMatchObject({ update: 'no_endpoints', no_endpoints: { exists: false } });
  });
});

describe('Destination.Get: endpoints', () => {
  it('sends no_endpoints{exists:false} for no such Service, {exists:true} for one without endpoints, then adds and removes as slices change', async () => {
    const f = follow(PATH);
    await f.count(1);
    expect(f.messages[0]).toMatchObject({ update: 'no_endpoints', no_endpoints: { exists: false } });

    await service('apps', 'web', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'] });
    await f.count(2);
    expect(f.messages[1]).toMatchObject({ update: 'no_endpoints', no_endpoints: { exists: true } });

    await slice('apps', 'web', 'web-a', ['10.1.0.1']);
    await f.until('10.1.0.1:8080');
    await slice('apps', 'web', 'web-a', ['10.1.0.1', '10.1.0.2']);
    await f.until('10.1.0.1:8080,10.1.0.2:8080');
    await slice('apps', 'web', 'web-a', ['10.1.0.2']);
    await f.until('10.1.0.2:8080');
    await del('/api/v1/namespaces/apps/endpointslices/web-a');
    await f.count(7);
    await slice('apps', 'web', 'web-b', ['10.1.0.3']);
    await f.until('10.1.0.3:8080');

    expect(f.messages.map((m) => m.update === 'add' ? { add: m.add!.addrs.map((a) => a.addr.port) }
      : m.update === 'remove' ? { remove: m.remove!.addrs.length } : { none: m.no_endpoints!.exists })).toEqual([
      { none: false }, { none: true },
      { add: [8080] }, { add: [8080] }, { remove: 1 },
      { remove: 1 }, { none: true },
      { add: [8080] },
    ]);
    const add = f.messages[2].add!;
    expect(add.metric_labels).toEqual({ namespace: 'apps', service: 'web' });
    expect(add.addrs[0]).toMatchObject({ weight: 10000, addr: { ip: { ipv4: (10 << 24) + (1 << 16) + 1 }, port: 8080 } });
    expect(f.ended).toEqual([]);
  });

  it('leaves out endpoints that are not ready or are terminating, and resolves a named targetPort', async () => {
    await service('apps', 'named', { ports: [{ name: 'http', port: 80, targetPort: 'web' }] });
    await put('/api/v1/namespaces/apps/endpointslices/named-1', {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'named' } },
      addressType: 'IPv4', ports: [{ name: 'web', port: 9090 }],
      endpoints: [
        { addresses: ['10.2.0.1'], conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'named-pod-1', namespace: 'apps' }, zone: 'z1' },
        { addresses: ['10.2.0.2'], conditions: { ready: false } },
        { addresses: ['10.2.0.3'], conditions: { ready: true, terminating: true } },
        { addresses: ['10.2.0.4'] },
      ],
    });
    const f = follow('named.apps.svc.cluster.local:80');
    await f.until('10.2.0.1:9090,10.2.0.4:9090');
    const first = f.messages[0].add!.addrs.find((a) => a.addr.ip.ipv4 === (10 << 24) + (2 << 16) + 1)!;
    expect(first.metric_labels).toEqual({ pod: 'named-pod-1', zone: 'z1' });
    expect(first.resource_ref).toMatchObject({ resource: { kind: 'Pod', name: 'named-pod-1', namespace: 'apps' } });
  });

  it('resolves a Service by its cluster IP, and follows the IP to the Service that holds it', async () => {
    await slice('apps', 'web', 'web-b', ['10.1.0.3']);
    const byIp = follow('10.96.0.10:80');
    await byIp.until('10.1.0.3:8080');
    // a port the Service does not declare: it exists, with nothing to send to
    const other = follow('10.96.0.10:81');
    await other.count(1);
    expect(other.messages[0]).toMatchObject({ update: 'no_endpoints', no_endpoints: { exists: true } });
    // an IP no Service holds
    const none = follow('10.96.0.99:80');
    await none.count(1);
    expect(none.messages[0]).toMatchObject({ update: 'no_endpoints', no_endpoints: { exists: false } });
    // the IP moves to another Service: the stream moves with it
    await service('apps', 'web', { clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11'] });
    await service('apps', 'web2', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'] });
    await slice('apps', 'web2', 'web2-a', ['10.3.0.1']);
    await byIp.until('10.3.0.1:8080');
    await service('apps', 'web', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'] });
  });

  it('keeps the order of the changes: a burst of slice writes is seen as a sequence of the states written, ending at the last', async () => {
    await service('apps', 'burst');
    const f = follow('burst.apps.svc.cluster.local:80');
    await f.count(1);
    // written at once, so that one read of the log takes several: the order is the one the
    // store gave them (each answer's resourceVersion)
    const written = await Promise.all(Array.from({ length: 30 }, async (_, i) => {
      const ips = Array.from({ length: 1 + (i % 4) }, (_, k) => `10.4.${i}.${k + 1}`);
      const body = {
        apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'burst' } },
        addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }], endpoints: ips.map((ip) => ({ addresses: [ip] })),
      };
      let r = await s.api('PUT', '/api/v1/namespaces/apps/endpointslices/burst-1', body);
      // two creates of one object at once: one of them is told it exists already, and writes again
      while (r.status === 409) r = await s.api('PUT', '/api/v1/namespaces/apps/endpointslices/burst-1', body);
      expect(r.status).toBeLessThan(300);
      return { version: Number(r.body.metadata.resourceVersion), state: ips.map((ip) => `${ip}:8080`).sort().join(',') };
    }));
    const states = ['', ...written.sort((a, b) => a.version - b.version).map((w) => w.state)];
    await f.until(states.at(-1)!);
    // the set after each message is a state written, or (between the add and the remove of one
    // change) the union of the state before and the next one; never an older state after a newer
    let at = 0;
    for (const seen of f.states) {
      const i = states.indexOf(seen, at);
      if (i >= 0) {
        at = i;
        continue;
      }
      const held = new Set(seen.split(',').filter(Boolean));
      const next = states.findIndex((st, k) => k > at && st.split(',').filter(Boolean).every((e) => held.has(e)));
      expect(next, `state "${seen}" after "${states[at]}"`).toBeGreaterThan(at);
      expect([...held].every((e) => states[at].includes(e) || states[next].includes(e)), `state "${seen}"`).toBe(true);
    }
    expect(at).toBe(states.length - 1);
    expect(f.messages.length).toBeGreaterThan(1);
  });

  it('serves many streams of one destination: each gets the whole set, then every change', async () => {
    await service('apps', 'many');
    await slice('apps', 'many', 'many-1', ['10.5.0.1']);
    const fs = Array.from({ length: 50 }, () => follow('many.apps.svc.cluster.local:80'));
    await Promise.all(fs.map((f) => f.until('10.5.0.1:8080')));
    await slice('apps', 'many', 'many-1', ['10.5.0.2']);
    await Promise.all(fs.map((f) => f.until('10.5.0.2:8080')));
    for (const f of fs) expect(f.messages.map((m) => m.update)).toEqual(['add', 'add', 'remove']);
    // streams that close leave the others alone
    for (const f of fs.slice(0, 25)) f.close();
    await slice('apps', 'many', 'many-1', ['10.5.0.3']);
    await Promise.all(fs.slice(25).map((f) => f.until('10.5.0.3:8080')));
  });

  it('sends no_endpoints{exists:false} when the Service is deleted', async () => {
    await service('apps', 'gone');
    await slice('apps', 'gone', 'gone-1', ['10.6.0.1']);
    const f = follow('gone.apps.svc.cluster.local:80');
    await f.until('10.6.0.1:8080');
    await del('/api/v1/namespaces/apps/services/gone');
    await f.count(3);
    // the slices stay, but without their Service there is nothing to send to
    expect(f.messages.slice(1).map((m) => m.update)).toEqual(['remove', 'no_endpoints']);
    expect(f.messages.at(-1)).toMatchObject({ no_endpoints: { exists: false } });
  });
});
