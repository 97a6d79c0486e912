// An Envoy node over delta ADS, as Envoy speaks it (no Envoy binary can be installed here, so the
// client is written by hand from the protocol): it subscribes to every Cluster and Listener, then
// by name to the route configurations, endpoints and secrets those name. It gets one listener per
// port of a Gateway with HTTP, HTTPS, TLS passthrough, TCP and UDP listeners; every cluster before
// anything naming it; and the certificate's data, which a token of another Gateway never gets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { freePort, mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { adsService } from '../../src/adapters/grpc/ads-service';
import { decodeMessage } from '../../src/adapters/grpc/xds-protos';
import { pgvViolations } from '../../src/adapters/grpc/pgv';
import { TYPE_URL } from '../../src/core/xds/types';

let s: TestServer;
let token: string;
let otherToken: string;
const NS = 'edge';
const GWG = 'gateway.networking.k8s.io';
const Ads = grpc.makeGenericClientConstructor(adsService(), 'AggregatedDiscoveryService');
const CERT = '-----BEGIN CERTIFICATE-----|MIIBqjCCAVCgAwIBAgIUYck8CURN5ng97n3T72lgVbcwdU4wCgYIKoZIzj0EAwIw|FjEUMBIGA1UEAwwLZXhhbXBsZS5jb20wIBcNMjYxMjAxMTMxMjM1WhgPMjEyNjEx|MDcxMzEyMzVaMBYxFDASBgNVBAMMC2V4YW1wbGUuY29tMFkwEwYHKoZIzj0CAQYI|KoZIzj0DAQcDQgAENzHzBObCGmVokgj9uSLtC+e4pZUAKdpLMJDbcF4yrGyIlqJ3|bzmvBODdXX7Y7t7LAz2w+//5VAMq0kAvd64l0qN6MHgwHQYDVR0OBBYEFBBgi1u3|zo6iiL8ZLMKvqCOsIMJ4MB8GA1UdIwQYMBaAFBBgi1u3zo6iiL8ZLMKvqCOsIMJ4|MA8GA1UdEwEB/wQFMAMBAf8wJQYDVR0RBB4wHIILZXhhbXBsZS5jb22CDSouZXhh|bXBsZS5jb20wCgYIKoZIzj0EAwIDSAAwRQIgIpJWNz77bG0II+xZiUTj78VXsJV5|eoqkhjj2cyLky14CIQCS29LeB5LdFc43oYfTdlPSV9M9P9xBURcLqsVlpeHzMg==|-----END CERTIFICATE-----|'.split('|').join('\n');
const KEY = '-----BEGIN PRIVATE KEY-----|MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgIp6RY+l/lqd7UyVZ|T8aBz5FEFTJMfVWNQufrdgx2mwChRANCAAQ3MfME5sIaZWiSCP25Iu0L57illQAp|2kswkNtwXjKsbIiWondvOa8E4N1dftju3ssDPbD7//lUAyrSQC93riXS|-----END PRIVATE KEY-----|'.split('|').join('\n');
const b64 = (s: string) => Buffer.from(s).toString('base64');

async function put(path: string, body: Record<string, unknown>): Promise<void> {
  const r = await s.api('PUT', path, body);
  if (r.status >= 300) throw new Error(`PUT ${path}: ${r.status} ${r.text}`);
}
const service = (name: string, port: number, address: string, protocol = 'TCP') => Promise.all([
  put(`/api/v1/namespaces/${NS}/services/${name}`, { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ name: 'p', port, protocol }] } }),
  put(`/api/v1/namespaces/${NS}/endpointslices/${name}-1`, {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `${name}-1`, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4', ports: [{ name: 'p', port: port + 1, protocol }], endpoints: [{ addresses: [address], conditions: { ready: true } }],
  }),
]);
const route = (kind: string, plural: string, version: string, name: string, spec: Record<string, unknown>) =>
  put(`/api/v1/namespaces/${NS}/${plural}/${name}`, { apiVersion: `${GWG}/${version}`, kind, metadata: { name }, spec });

const envoyNode = (gateway = `${NS}/gw`) => ({ id: 'envoy-1', cluster: gateway, user_agent_name: 'envoy' });

/** A delta stream with its responses queued, each taken in turn. */
function open(tok: string) {
  const client = new Ads(`127.0.0.1:${s.running.xds!.port}`, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${tok}`);
  const call = (client as any).DeltaAggregatedResources(md) as grpc.ClientDuplexStream<any, any>;
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
    errored,
    close: () => { call.cancel(); client.close(); },
  };
}

/** A response's resources decoded, each checked against the protos' constraints as Envoy checks them. */
function decoded(r: any): any[] {
  return r.resources.map((x: any) => {
    expect(pgvViolations(r.type_url, x.resource.value), x.name).toEqual([]);
    return decodeMessage(r.type_url, x.resource.value);
  });
}

/** Every string under a key named `cluster`, every weighted cluster's name and gRPC service's cluster, anywhere in a message (Any values decoded). */
function clustersNamed(msg: unknown, out = new Set<string>()): Set<string> {
  const walk = (v: any, key: string): void => {
    if (Array.isArray(v)) return v.forEach((x) => walk(x, key));
    if (!v || typeof v !== 'object') {
      if (key === 'cluster' && typeof v === 'string') out.add(v);
      return;
    }
    if (typeof v.type_url === 'string' && v.value !== undefined) {
      try {
        return walk(decodeMessage(v.type_url, Buffer.from(v.value, 'base64')), key);
      } catch { /* a type the protos here do not hold carries no cluster names we send */ }
    }
    if (key === 'weighted_clusters') for (const c of v.clusters ?? []) out.add(c.name);
    if (key === 'envoy_grpc' && typeof v.cluster_name === 'string') out.add(v.cluster_name);
    for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(msg, '');
  return out;
}

beforeAll(async () => {
  s = await startTestServer({ xdsPort: await freePort() });
  await put('/api/v1/gatewayclasses/switchyard', { apiVersion: `${GWG}/v1`, kind: 'GatewayClass', metadata: { name: 'switchyard' }, spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  await put(`/api/v1/namespaces/${NS}/secrets/cert`, { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', data: { 'tls.crt': b64(CERT), 'tls.key': b64(KEY) } });
  await put(`/api/v1/namespaces/${NS}/gateways/gw`, {
    apiVersion: `${GWG}/v1`, kind: 'Gateway', metadata: { name: 'gw' },
    spec: {
      gatewayClassName: 'switchyard',
      listeners: [
        { name: 'http', protocol: 'HTTP', port: 8080 },
        { name: 'https', protocol: 'HTTPS', port: 8443, hostname: 'www.example.com', tls: { certificateRefs: [{ name: 'cert' }] } },
        { name: 'pass', protocol: 'TLS', port: 9443, hostname: 'db.example.com', tls: { mode: 'Passthrough' } },
        { name: 'tcp', protocol: 'TCP', port: 9000 },
        { name: 'udp', protocol: 'UDP', port: 9053 },
      ],
    },
  });
  await put(`/api/v1/namespaces/${NS}/gateways/other`, {
    apiVersion: `${GWG}/v1`, kind: 'Gateway', metadata: { name: 'other' },
    spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'http', protocol: 'HTTP', port: 8080 }] },
  });
  await service('web', 80, '10.1.0.1');
  await service('db', 5432, '10.1.0.2');
  await service('raw', 7000, '10.1.0.3');
  await service('dns', 53, '10.1.0.4', 'UDP');
  await service('authz', 9001, '10.1.0.5');
  await route('HTTPRoute', 'httproutes', 'v1', 'web', { parentRefs: [{ name: 'gw', sectionName: 'http' }, { name: 'gw', sectionName: 'https' }], rules: [{ backendRefs: [{ name: 'web', port: 80, weight: 3 }, { name: 'missing', port: 80, weight: 1 }] }] });
  await route('HTTPRoute', 'httproutes', 'v1', 'private', { parentRefs: [{ name: 'gw', sectionName: 'http' }], rules: [{
    matches: [{ path: { type: 'PathPrefix', value: '/private' } }],
    filters: [{ type: 'ExternalAuth', externalAuth: { protocol: 'GRPC', backendRef: { name: 'authz', port: 9001 }, grpc: {} } }],
    sessionPersistence: { type: 'Cookie', absoluteTimeout: '1h', cookie: { lifetimeType: 'Permanent' } },
    backendRefs: [{ name: 'web', port: 80 }],
  }] });
  await route('TLSRoute', 'tlsroutes', 'v1alpha2', 'db', { parentRefs: [{ name: 'gw', sectionName: 'pass' }], hostnames: ['db.example.com'], rules: [{ backendRefs: [{ name: 'db', port: 5432 }] }] });
  await route('TCPRoute', 'tcproutes', 'v1alpha2', 'raw', { parentRefs: [{ name: 'gw', sectionName: 'tcp' }], rules: [{ backendRefs: [{ name: 'raw', port: 7000 }] }] });
  await route('UDPRoute', 'udproutes', 'v1alpha2', 'dns', { parentRefs: [{ name: 'gw', sectionName: 'udp' }], rules: [{ backendRefs: [{ name: 'dns', port: 53 }] }] });
  await reconciled(s);
  token = await mintToken(s, { name: 'gw-envoy', role: 'proxy', gateways: [`${NS}/gw`] });
  otherToken = await mintToken(s, { name: 'other-envoy', role: 'proxy', gateways: [`${NS}/other`] });
}, 180_000);

afterAll(async () => {
  await s?.close();
});

describe('an Envoy node over delta ADS', () => {
  it('gets a listener per port, clusters before what names them, routes, endpoints and its certificate by SDS', async () => {
    const st = open(token);
    // Envoy's order: every cluster; listeners only once the clusters are in (its initial fetch)
    st.send({ node: envoyNode(), type_url: TYPE_URL.cluster });
    const received: string[] = [];
    const sentClusters = new Set<string>();
    const cds = await st.next();
    received.push(cds.type_url);
    for (const c of decoded(cds)) sentClusters.add(c.name);
    st.send({ node: envoyNode(), type_url: cds.type_url, response_nonce: cds.nonce });
    st.send({ node: envoyNode(), type_url: TYPE_URL.listener });
    let listeners: any[] = [];
    while (listeners.length === 0) {
      const r = await st.next();
      received.push(r.type_url);
      const res = decoded(r);
      if (r.type_url === TYPE_URL.cluster) for (const c of res) sentClusters.add(c.name);
      if (r.type_url === TYPE_URL.listener) {
        listeners = res;
        for (const l of res) for (const c of clustersNamed(l)) expect(sentClusters, `listener ${l.name} names cluster ${c}`).toContain(c);
      }
      st.send({ node: envoyNode(), type_url: r.type_url, response_nonce: r.nonce });
    }
    expect(received[0]).toBe(TYPE_URL.cluster);
    expect(listeners.map((l) => l.name).sort()).toEqual(['edge/gw/8080', 'edge/gw/8443', 'edge/gw/9000', 'edge/gw/9053/udp', 'edge/gw/9443']);
    const byName = Object.fromEntries(listeners.map((l) => [l.name, l]));
    expect(byName['edge/gw/9053/udp'].address.socket_address.protocol).toBe('UDP');
    const tlsChains = byName['edge/gw/9443'].filter_chains;
    expect(tlsChains.map((c: any) => c.filter_chain_match.server_names)).toEqual([['db.example.com']]);
    // passthrough: the connection is not terminated
    expect(tlsChains[0].transport_socket).toBeUndefined();
    const httpsChain = byName['edge/gw/8443'].filter_chains[0];
    expect(httpsChain.filter_chain_match.server_names).toEqual(['www.example.com']);
    expect(httpsChain.transport_socket.typed_config.type_url).toContain('DownstreamTlsContext');

    // then by name, as Envoy asks: the route configurations and secrets the listeners name, the endpoints of the clusters
    const text = JSON.stringify(listeners.map((l) => clustersNamed(l)).flatMap((x) => [...x]));
    expect(text).toContain('edge/raw:7000');
    st.send({ node: envoyNode(), type_url: TYPE_URL.route, resource_names_subscribe: ['edge/gw/8080', 'edge/gw/8443/https'] });
    st.send({ node: envoyNode(), type_url: TYPE_URL.endpoint, resource_names_subscribe: [...sentClusters] });
    st.send({ node: envoyNode(), type_url: TYPE_URL.secret, resource_names_subscribe: ['edge/cert'] });
    const got: Record<string, any[]> = {};
    while (!got[TYPE_URL.route] || !got[TYPE_URL.endpoint] || !got[TYPE_URL.secret]) {
      const r = await st.next();
      const res = decoded(r);
      got[r.type_url] = [...(got[r.type_url] ?? []), ...res];
      if (r.type_url === TYPE_URL.cluster) for (const c of res) sentClusters.add(c.name);
      if (r.type_url === TYPE_URL.route) for (const rc of res) for (const c of clustersNamed(rc)) expect(sentClusters, `route ${rc.name} names cluster ${c}`).toContain(c);
      st.send({ node: envoyNode(), type_url: r.type_url, response_nonce: r.nonce });
    }
    const routes = Object.fromEntries(got[TYPE_URL.route].map((r) => [r.name, r]));
    expect(Object.keys(routes).sort()).toEqual(['edge/gw/8080', 'edge/gw/8443/https']);
    // the missing backend's quarter is aborted 500 on the unusable cluster, which was sent
    const web = routes['edge/gw/8080'].virtual_hosts.find((v: any) => v.domains.includes('*')).routes.find((r: any) => r.name.startsWith('HTTPRoute/edge/web/'));
    expect(web.route.weighted_clusters.clusters.map((c: any) => [c.name, c.weight.value])).toEqual([['edge/web:80', 3], ['switchyard/unusable-backend', 1]]);
    expect(sentClusters).toContain('switchyard/unusable-backend');
    // ExternalAuth: an ext_authz filter on port 8080's connection manager, disabled but where the rule's route enables it; its server's cluster was sent
    const hcm = decodeMessage(byName['edge/gw/8080'].filter_chains[0].filters[0].typed_config.type_url, Buffer.from(byName['edge/gw/8080'].filter_chains[0].filters[0].typed_config.value, 'base64')) as any;
    const authz = hcm.http_filters.find((f: any) => f.name.startsWith('envoy.filters.http.ext_authz/'));
    expect(authz.disabled).toBe(true);
    const authzConfig = decodeMessage(authz.typed_config.type_url, Buffer.from(authz.typed_config.value, 'base64')) as any;
    expect(authzConfig.grpc_service.envoy_grpc.cluster_name).toBe('edge/authz:9001/h2');
    expect(authzConfig.status_on_error.code).toBe('Forbidden');
    expect(sentClusters).toContain('edge/authz:9001/h2');
    const priv = routes['edge/gw/8080'].virtual_hosts.find((v: any) => v.domains.includes('*')).routes.find((r: any) => r.name.startsWith('HTTPRoute/edge/private/'));
    expect(Object.keys(priv.typed_per_filter_config).sort()).toEqual([authz.name, 'envoy.filters.http.stateful_session']);
    const session = decodeMessage(priv.typed_per_filter_config['envoy.filters.http.stateful_session'].type_url, Buffer.from(priv.typed_per_filter_config['envoy.filters.http.stateful_session'].value, 'base64')) as any;
    const state = decodeMessage(session.stateful_session.session_state.typed_config.type_url, Buffer.from(session.stateful_session.session_state.typed_config.value, 'base64')) as any;
    expect(state.cookie.ttl.seconds).toBe('3600');
    // the web route asks no authorization server
    expect(web.typed_per_filter_config).toBeUndefined();
    const eps = Object.fromEntries(got[TYPE_URL.endpoint].map((e) => [e.cluster_name, e]));
    expect(eps['edge/web:80'].endpoints[0].lb_endpoints[0].endpoint.address.socket_address).toMatchObject({ address: '10.1.0.1', port_value: 81 });
    expect(eps['switchyard/unusable-backend'].endpoints ?? []).toEqual([]);
    const [secret] = got[TYPE_URL.secret];
    expect(secret.name).toBe('edge/cert');
    expect(Buffer.from(secret.tls_certificate.private_key.inline_bytes, 'base64').toString()).toBe(KEY);
    st.close();
  });

  it("a token of another Gateway gets no Secret data: not this Gateway's, not through its own", async () => {
    const st = open(otherToken);
    st.send({ node: envoyNode(), type_url: TYPE_URL.secret, resource_names_subscribe: ['edge/cert'] });
    expect((await st.errored).code).toBe(grpc.status.PERMISSION_DENIED);
    st.close();
    const own = open(otherToken);
    own.send({ node: envoyNode(`${NS}/other`), type_url: TYPE_URL.secret, resource_names_subscribe: ['edge/cert'] });
    const r = await own.next();
    // the name is answered as not there, with no data
    expect(r.resources).toEqual([]);
    expect(r.removed_resources).toEqual(['edge/cert']);
    own.close();
  });
});
