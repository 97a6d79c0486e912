// BackendTLSPolicy through the real HTTP server, store and worker: operators apply it (v1alpha3 is
// read back as written), a CEL rule of the CRD refuses bad input with a 422 and writes nothing, its
// status.ancestors come from the Gateway reaching the targeted Service, a change of its CA ConfigMap
// recomputes that Gateway (the dependency model), and history, the events feed and a rebuild hold it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, client, mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { rebuildProjections } from '../../src/service/rebuild';

let s: TestServer;
let operator: string;
const GWG = 'gateway.networking.k8s.io';
const CA = '-----BEGIN CERTIFICATE-----|MIIBqjCCAVCgAwIBAgIUYck8CURN5ng97n3T72lgVbcwdU4wCgYIKoZIzj0EAwIw|FjEUMBIGA1UEAwwLZXhhbXBsZS5jb20wIBcNMjYxMjAxMTMxMjM1WhgPMjEyNjEx|MDcxMzEyMzVaMBYxFDASBgNVBAMMC2V4YW1wbGUuY29tMFkwEwYHKoZIzj0CAQYI|KoZIzj0DAQcDQgAENzHzBObCGmVokgj9uSLtC+e4pZUAKdpLMJDbcF4yrGyIlqJ3|bzmvBODdXX7Y7t7LAz2w+//5VAMq0kAvd64l0qN6MHgwHQYDVR0OBBYEFBBgi1u3|zo6iiL8ZLMKvqCOsIMJ4MB8GA1UdIwQYMBaAFBBgi1u3zo6iiL8ZLMKvqCOsIMJ4|MA8GA1UdEwEB/wQFMAMBAf8wJQYDVR0RBB4wHIILZXhhbXBsZS5jb22CDSouZXhh|bXBsZS5jb20wCgYIKoZIzj0EAwIDSAAwRQIgIpJWNz77bG0II+xZiUTj78VXsJV5|eoqkhjj2cyLky14CIQCS29LeB5LdFc43oYfTdlPSV9M9P9xBURcLqsVlpeHzMg==|-----END CERTIFICATE-----|'.split('|').join('\n');
const KEY = '-----BEGIN PRIVATE KEY-----|MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgIp6RY+l/lqd7UyVZ|T8aBz5FEFTJMfVWNQufrdgx2mwChRANCAAQ3MfME5sIaZWiSCP25Iu0L57illQAp|2kswkNtwXjKsbIiWondvOa8E4N1dftju3ssDPbD7//lUAyrSQC93riXS|-----END PRIVATE KEY-----|'.split('|').join('\n');
const POLICIES = '/api/v1/namespaces/apps/backendtlspolicies';

beforeAll(async () => {
  s = await startTestServer();
  operator = await mintToken(s, { name: 'btls-ops', role: 'operator', namespaces: ['apps'] });
});
afterAll(async () => {
  await s?.close();
});

async function apply(docs: object[], token = ADMIN_TOKEN): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.url}/api/v1/apply?wait=30`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ items: docs }),
  });
  return { status: res.status, body: await res.json() };
}

const policy = (validation: Record<string, unknown>) => ({
  apiVersion: `${GWG}/v1alpha3`, kind: 'BackendTLSPolicy', metadata: { name: 'secure', namespace: 'apps' },
  spec: { targetRefs: [{ group: '', kind: 'Service', name: 'secure' }], validation: { hostname: 'secure.apps.example', ...validation } },
});
const caMap = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ca', namespace: 'apps' }, data });

const world = [
  { apiVersion: `${GWG}/v1`, kind: 'GatewayClass', metadata: { name: 'switchyard' }, spec: { controllerName: 'switchyard.dev/gateway-controller' } },
  { apiVersion: `${GWG}/v1`, kind: 'Gateway', metadata: { name: 'gw', namespace: 'infra' },
    spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] } },
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'secure', namespace: 'apps' }, spec: { ports: [{ name: 'https', port: 443 }] } },
  { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'secure-1', namespace: 'apps', labels: { 'kubernetes.io/service-name': 'secure' } },
    addressType: 'IPv4', ports: [{ name: 'https', port: 8443 }], endpoints: [{ addresses: ['10.1.0.1'], conditions: { ready: true } }] },
  { apiVersion: `${GWG}/v1`, kind: 'HTTPRoute', metadata: { name: 'app', namespace: 'apps' },
    spec: { parentRefs: [{ name: 'gw', namespace: 'infra' }], rules: [{ backendRefs: [{ name: 'secure', port: 443 }] }] } },
];

const ancestorConditions = async () => {
  const p = await s.api('GET', `${POLICIES}/secure`);
  expect(p.status).toBe(200);
  return (p.body.status?.ancestors ?? []).map((a: any) => ({ gateway: `${a.ancestorRef.namespace}/${a.ancestorRef.name}`,
    conditions: a.conditions.map((c: any) => `${c.type}=${c.status}/${c.reason}`) }));
};
const backend = async () => (await s.api('GET', '/api/v1/namespaces/infra/gateways/gw/snapshot')).body.table.rules[0].backends[0];

describe('BackendTLSPolicy', () => {
  it('an operator applies it; a CEL rule of the CRD refuses both CA sources at once with a 422 and writes nothing', async () => {
    await apply([...world]);
    const bad = await apply([caMap({ 'ca.crt': CA }), policy({ caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'ca' }], wellKnownCACertificates: 'System' })], operator);
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('must not contain both CACertificateRefs and WellKnownCACertificates');
    expect((await s.api('GET', `${POLICIES}/secure`)).status).toBe(404);
    expect((await s.api('GET', '/api/v1/namespaces/apps/configmaps/ca')).status).toBe(404);

    const ok = await apply([caMap({ 'ca.crt': CA }), policy({ caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'ca' }] })], operator);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await reconciled(s);
    const p = await s.api('GET', `${POLICIES}/secure`);
    expect(p.body.apiVersion).toBe(`${GWG}/v1alpha3`);
    expect(await ancestorConditions()).toEqual([{ gateway: 'infra/gw', conditions: ['Accepted=True/Accepted', 'ResolvedRefs=True/ResolvedRefs'] }]);
    const b = await backend();
    expect(b.valid).toBe(true);
    expect(b.tls).toMatchObject({ sni: 'secure.apps.example', policy: { kind: 'BackendTLSPolicy', namespace: 'apps', name: 'secure' } });
    expect(b.tls.caCertificates).toContain('-----BEGIN CERTIFICATE-----');
  });

  it('a change of its CA ConfigMap reaches the Gateway: no usable CA makes the backend invalid, a good one valid again', async () => {
    await s.api('PUT', '/api/v1/namespaces/apps/configmaps/ca', caMap({ 'ca.crt': 'not a certificate' }));
    await reconciled(s);
    expect(await ancestorConditions()).toEqual([{ gateway: 'infra/gw', conditions: ['Accepted=False/NoValidCACertificate', 'ResolvedRefs=False/InvalidCACertificateRef'] }]);
    expect(await backend()).toMatchObject({ valid: false, reason: 'InvalidBackendTLS' });
    const resolved = await s.api('POST', '/api/v1/namespaces/infra/gateways/gw/resolve', { port: 80, path: '/' });
    expect(resolved.body.statusCode).toBe(500);
    await s.api('PUT', '/api/v1/namespaces/apps/configmaps/ca', caMap({ 'ca.crt': CA }));
    await reconciled(s);
    expect((await backend()).valid).toBe(true);
  });

  it('the route leaving the Service takes the Gateway out of the ancestors', async () => {
    await s.api('PUT', '/api/v1/namespaces/apps/services/other', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } });
    const moved = { ...world[4], spec: { parentRefs: [{ name: 'gw', namespace: 'infra' }], rules: [{ backendRefs: [{ name: 'other', port: 80 }] }] } };
    await s.api('PUT', '/api/v1/namespaces/apps/httproutes/app', moved);
    await reconciled(s);
    expect(await ancestorConditions()).toEqual([]);
    await s.api('PUT', '/api/v1/namespaces/apps/httproutes/app', world[4]);
    await reconciled(s);
    expect(await ancestorConditions()).toHaveLength(1);
  });

  it("the Gateway's backend client certificate and a CA Secret reach its proxies in the snapshot's secrets, never viewers", async () => {
    const b64 = (x: string) => Buffer.from(x).toString('base64');
    await s.api('PUT', '/api/v1/namespaces/infra/secrets/client', { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', data: { 'tls.crt': b64(CA), 'tls.key': b64(KEY) } });
    await s.api('PUT', '/api/v1/namespaces/apps/secrets/ca-secret', { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', data: { 'ca.crt': b64(CA) } });
    await s.api('PUT', '/api/v1/namespaces/infra/gateways/gw', { ...world[1], spec: { ...(world[1] as any).spec, tls: { backend: { clientCertificateRef: { name: 'client' } } } } });
    await s.api('PUT', `${POLICIES}/secure`, policy({ caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'ca' }, { group: '', kind: 'Secret', name: 'ca-secret' }] }));
    await reconciled(s);
    const proxy = client(s.url, await mintToken(s, { name: 'btls-proxy', role: 'proxy', gateways: ['infra/gw'] }));
    const snap = (await proxy('GET', '/api/v1/namespaces/infra/gateways/gw/snapshot')).body;
    expect(snap.table.backendClientCertificate).toEqual({ group: '', kind: 'Secret', namespace: 'infra', name: 'client' });
    expect(snap.table.rules[0].backends[0].tls.caCertificateSecrets).toEqual([{ group: '', kind: 'Secret', namespace: 'apps', name: 'ca-secret' }]);
    const secrets = Object.fromEntries(snap.secrets.map((x: any) => [`${x.namespace}/${x.name}`, x.data]));
    expect(secrets['infra/client']['tls.key']).toBe(b64(KEY));
    expect(secrets['apps/ca-secret']['ca.crt']).toBe(b64(CA));
    const viewer = client(s.url, await mintToken(s, { name: 'btls-viewer', role: 'viewer' }));
    const seen = (await viewer('GET', '/api/v1/namespaces/infra/gateways/gw/snapshot')).body;
    expect(JSON.stringify(seen)).not.toContain(b64(KEY));
    expect(seen.secrets ?? []).toEqual([]);
    // the policy back as it was
    await s.api('PUT', `${POLICIES}/secure`, policy({ caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'ca' }] }));
  });

  it('is in its history, in the events feed, and survives a rebuild', async () => {
    const h = await s.api('GET', `${POLICIES}/secure/history`);
    expect(h.body.items.map((x: any) => [x.version, x.type, x.actor])).toEqual([[1, 'Created', 'btls-ops'], [2, 'Updated', 'admin'], [3, 'Updated', 'admin']]);
    const ev = await s.api('GET', '/api/v1/events?kind=BackendTLSPolicy&namespace=apps');
    expect(ev.body.items.map((x: any) => [x.type, x.name, x.version])).toEqual([['Created', 'secure', 1], ['Updated', 'secure', 2], ['Updated', 'secure', 3]]);
    // a developer of the namespace may read it but not write it
    const dev = client(s.url, await mintToken(s, { name: 'btls-dev', role: 'developer', namespaces: ['apps'] }));
    expect((await dev('GET', `${POLICIES}/secure`)).status).toBe(200);
    expect((await dev('DELETE', `${POLICIES}/secure`)).status).toBe(403);
    const before = (await s.api('GET', `${POLICIES}/secure`)).body;
    await rebuildProjections(s.running.ctx.db);
    await reconciled(s);
    const after = (await s.api('GET', `${POLICIES}/secure`)).body;
    expect(after.spec).toEqual(before.spec);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(await ancestorConditions()).toEqual([{ gateway: 'infra/gw', conditions: ['Accepted=True/Accepted', 'ResolvedRefs=True/ResolvedRefs'] }]);
  });
});
