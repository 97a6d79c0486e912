// BackendTLSPolicy resolution in the core: which policy applies to a Service port, conflicts by age
// then namespace/name, the CA sources and the reasons the API names, and the backend a proxy gets.
import { describe, expect, it } from 'vitest';
import { worldOf } from '../../src/core/model/world';
import { viewOf } from '../../src/core/refs/lookup';
import { policyForPort, policyVerdict, withBackendTLS } from '../../src/core/refs/backend-tls';
import { translate } from '../../src/core/translate';

const CA = ['-----BEGIN CERTIFICATE-----', 'MIIBqjCCAVCgAwIBAgIUYck8CURN5ng97n3T72lgVbcwdU4wCgYIKoZIzj0EAwIw', '-----END CERTIFICATE-----'].join('\n');
const policy = (name: string, created: string, target: Record<string, unknown>, validation: Record<string, unknown>) => ({
  apiVersion: 'gateway.networking.k8s.io/v1', kind: 'BackendTLSPolicy',
  metadata: { name, namespace: 'apps', creationTimestamp: created, generation: 1 },
  spec: { targetRefs: [{ group: '', kind: 'Service', name: 'svc', ...target }], validation: { hostname: 'svc.example', ...validation } },
});
const cm = (ref: string) => ({ caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: ref }] });
const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'apps' }, spec: { ports: [{ name: 'https', port: 443 }, { name: 'admin', port: 9443 }] } };
const objects = (...extra: object[]) => worldOf([service, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ca', namespace: 'apps' }, data: { 'ca.crt': CA } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'empty', namespace: 'apps' }, data: {} },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ca-secret', namespace: 'apps' }, type: 'Opaque', data: { 'ca.crt': Buffer.from(CA).toString('base64') } },
  ...extra] as never);
const res = (port: number) => ({ group: '', kind: 'Service', namespace: 'apps', name: 'svc', port, weight: 1, valid: true, endpoints: [{ address: '10.0.0.1', port }], ref: {} as never });

describe('BackendTLSPolicy', () => {
  it('the policy naming the port wins over the one naming the Service; the older of two alike wins, whatever the names', () => {
    const whole = policy('a-whole', '2026-01-01T00:00:00.000Z', {}, cm('ca'));
    const younger = policy('a-port', '2026-01-02T00:00:00.000Z', { sectionName: 'https' }, cm('ca'));
    const older = policy('z-port', '2026-01-01T12:00:00.000Z', { sectionName: 'https' }, cm('ca'));
    const view = viewOf(objects(whole, younger, older));
    expect(policyForPort(view, 'apps', 'svc', 'https')?.metadata.name).toBe('z-port');
    expect(policyForPort(view, 'apps', 'svc', 'admin')?.metadata.name).toBe('a-whole');
    expect(policyVerdict(view, younger as never).accepted).toMatchObject({ ok: false, reason: 'Conflicted' });
    expect(policyVerdict(view, older as never).accepted.ok).toBe(true);
    // same timestamp: namespace/name decides
    const twin = policy('b-port', '2026-01-01T12:00:00.000Z', { sectionName: 'https' }, cm('ca'));
    expect(policyForPort(viewOf(objects(older, twin)), 'apps', 'svc', 'https')?.metadata.name).toBe('b-port');
  });

  it('names the reasons: InvalidKind before InvalidCACertificateRef, NoValidCACertificate only when no CA is usable, Invalid for an unknown CA set', () => {
    const view = viewOf(objects());
    const mixed = policyVerdict(view, policy('m', 't', {}, { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'missing' }, { group: 'x.io', kind: 'Bundle', name: 'b' }] }) as never);
    expect(mixed.resolvedRefs).toMatchObject({ ok: false, reason: 'InvalidKind' });
    expect(mixed.accepted).toMatchObject({ ok: false, reason: 'NoValidCACertificate' });
    const partly = policyVerdict(view, policy('p', 't', {}, { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'empty' }, { group: '', kind: 'ConfigMap', name: 'ca' }] }) as never);
    expect(partly.resolvedRefs).toMatchObject({ ok: false, reason: 'InvalidCACertificateRef' });
    expect(partly.accepted.ok).toBe(true);
    expect(partly.tls?.caCertificates).toBe(`${CA}\n`);
    const custom = policyVerdict(view, policy('c', 't', {}, { wellKnownCACertificates: 'example.com/corporate' }) as never);
    expect(custom.accepted).toMatchObject({ ok: false, reason: 'Invalid' });
    const secret = policyVerdict(view, policy('s', 't', {}, { caCertificateRefs: [{ group: '', kind: 'Secret', name: 'ca-secret' }],
      subjectAltNames: [{ type: 'URI', uri: 'spiffe://a/b' }, { type: 'Hostname', hostname: 'svc.example' }] }) as never);
    expect(secret.tls).toEqual({ policy: { group: 'gateway.networking.k8s.io', kind: 'BackendTLSPolicy', namespace: 'apps', name: 's' }, sni: 'svc.example',
      subjectAltNames: [{ type: 'URI', value: 'spiffe://a/b' }, { type: 'Hostname', value: 'svc.example' }],
      caCertificateSecrets: [{ group: '', kind: 'Secret', namespace: 'apps', name: 'ca-secret' }] });
  });

  it('a backend gets the TLS of its policy, is invalid when the policy has no usable CA, and is left alone by a policy that lost a conflict', () => {
    const good = policy('good', '2026-01-01T00:00:00.000Z', { sectionName: 'https' }, cm('ca'));
    const lost = policy('lost', '2026-01-02T00:00:00.000Z', { sectionName: 'https' }, cm('missing'));
    const bad = policy('bad', '2026-01-01T00:00:00.000Z', { sectionName: 'admin' }, cm('missing'));
    const view = viewOf(objects(good, lost, bad));
    expect(withBackendTLS(view, res(443)).tls?.sni).toBe('svc.example');
    expect(withBackendTLS(view, res(9443))).toMatchObject({ valid: false, reason: 'InvalidBackendTLS', endpoints: [] });
    const plain = viewOf(objects(lost));
    expect(withBackendTLS(plain, res(443))).toMatchObject({ valid: false, reason: 'InvalidBackendTLS' });
    expect(withBackendTLS(viewOf(objects()), res(443))).toEqual(res(443));
  });

  it('applies to HTTPRoute, GRPCRoute and TLSRoute backends only: a TCPRoute carries no TLS, and neither it nor a passthrough TLSRoute makes an ancestor', () => {
    const G = 'gateway.networking.k8s.io';
    const gateway = { apiVersion: `${G}/v1`, kind: 'Gateway', metadata: { name: 'gw', namespace: 'apps', generation: 1 }, spec: { gatewayClassName: 'sw', listeners: [
      { name: 'tcp', port: 9000, protocol: 'TCP', allowedRoutes: { namespaces: { from: 'Same' }, kinds: [{ kind: 'TCPRoute' }] } },
      { name: 'pass', port: 443, protocol: 'TLS', hostname: 'p.example', tls: { mode: 'Passthrough' }, allowedRoutes: { namespaces: { from: 'Same' }, kinds: [{ kind: 'TLSRoute' }] } },
      { name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'Same' } } },
    ] } };
    const cls = { apiVersion: `${G}/v1`, kind: 'GatewayClass', metadata: { name: 'sw' }, spec: { controllerName: 'c.example/x' } };
    const slice = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'svc-1', namespace: 'apps', labels: { 'kubernetes.io/service-name': 'svc' } },
      addressType: 'IPv4', ports: [{ name: 'https', port: 8443 }], endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }] };
    const route = (kind: string, extra: object = {}) => ({ apiVersion: `${G}/${kind === 'HTTPRoute' ? 'v1' : 'v1alpha2'}`, kind, metadata: { name: kind.toLowerCase(), namespace: 'apps', generation: 1 },
      spec: { parentRefs: [{ name: 'gw' }], ...extra, rules: [{ backendRefs: [{ name: 'svc', port: 443 }] }] } });
    const p = policy('p', '2026-01-01T00:00:00.000Z', {}, cm('ca'));
    const l4 = [cls, gateway, slice, route('TCPRoute'), route('TLSRoute', { hostnames: ['p.example'] }), p];
    const t = translate(objects(...l4), { namespace: 'apps', name: 'gw' }, { controllerName: 'c.example/x', now: '2026-01-02T00:00:00.000Z' })!;
    expect(t.table.rules.length).toBe(2);
    // the TLSRoute's rule carries it (a terminating listener elsewhere would use it; this passthrough one ignores it), the TCPRoute's not
    const byKind = (kind: string) => t.table.rules.find((r) => t.table.routes[r.route].kind === kind)!.backends[0];
    expect([byKind('TCPRoute').valid, byKind('TCPRoute').tls]).toEqual([true, undefined]);
    expect(byKind('TLSRoute').tls?.sni).toBe('svc.example');
    expect(t.policyAncestors).toEqual([]);
    const withHTTP = translate(objects(...l4, route('HTTPRoute')), { namespace: 'apps', name: 'gw' }, { controllerName: 'c.example/x', now: '2026-01-02T00:00:00.000Z' })!;
    expect(withHTTP.policyAncestors.map((a) => a.name)).toEqual(['p']);
    const http = withHTTP.table.rules.find((r) => withHTTP.table.routes[r.route].kind === 'HTTPRoute')!;
    expect(http.backends[0].tls?.sni).toBe('svc.example');
  });
});
