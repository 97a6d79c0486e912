// A TLS listener in Terminate mode carries TCPRoute as well as TLSRoute: supportedKinds lists both,
// a TCPRoute attaches, and a connection whose server name no TLSRoute takes goes, decrypted, to the
// TCPRoute's backend; a Passthrough listener still carries TLSRoute alone.
import { describe, expect, it } from 'vitest';
import { ConformanceStore, CONTROLLER, NOW, loadBase } from './conformance-requests-harness';
import { translate } from '../../src/core/translate';
import { resolve } from '../../src/core/resolve';

const ns = 'gateway-conformance-infra';

function run(mode: 'Terminate' | 'Passthrough', withTLSRoute: boolean) {
  const store = new ConformanceStore();
  for (const o of loadBase()) store.apply(o);
  store.apply({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'tls-term', namespace: ns }, spec: {
    gatewayClassName: '{GATEWAY_CLASS_NAME}',
    listeners: [{ name: 'tls', port: 443, protocol: 'TLS', tls: { mode, ...(mode === 'Terminate' ? { certificateRefs: [{ name: 'tls-terminate-checks-certificate' }] } : {}) },
      allowedRoutes: { namespaces: { from: 'Same' } } }] } });
  store.apply({ apiVersion: 'gateway.networking.k8s.io/v1alpha2', kind: 'TCPRoute', metadata: { name: 'plain', namespace: ns },
    spec: { parentRefs: [{ name: 'tls-term' }], rules: [{ backendRefs: [{ name: 'tcp-backend', port: 3000 }] }] } });
  if (withTLSRoute) store.apply({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'TLSRoute', metadata: { name: 'named', namespace: ns },
    spec: { parentRefs: [{ name: 'tls-term' }], hostnames: ['named.example.com'], rules: [{ backendRefs: [{ name: 'infra-backend-v1', port: 8080 }] }] } });
  const t = translate(store.world(), { namespace: ns, name: 'tls-term' }, { controllerName: CONTROLLER, now: NOW })!;
  const listener = t.gatewayStatus.listeners![0];
  const tcpParent = [...t.routeParents].find((r) => r.name === 'plain')!.parents[0];
  const ask = (sni: string) => resolve(t.table, { protocol: 'TLS', port: 443, sni });
  return { listener, tcpParent, ask };
}

describe('TLS listeners in Terminate mode and TCPRoute', () => {
  it('supportedKinds lists TLSRoute and TCPRoute, and the TCPRoute is accepted', () => {
    const { listener, tcpParent } = run('Terminate', false);
    expect(listener.supportedKinds!.map((k: any) => k.kind).sort()).toEqual(['TCPRoute', 'TLSRoute']);
    expect(listener.attachedRoutes).toBe(1);
    expect(tcpParent.conditions.find((c: any) => c.type === 'Accepted')).toMatchObject({ status: 'True' });
  });

  it('the TLSRoute takes its names; any other name goes to the TCPRoute', () => {
    const { ask } = run('Terminate', true);
    const named = ask('named.example.com');
    expect(named.backends[named.chosenBackend!].name).toBe('infra-backend-v1');
    const other = ask('other.example.com');
    expect(other.forwarded).toBe(true);
    expect(other.route?.kind).toBe('TCPRoute');
    expect(other.backends[other.chosenBackend!].name).toBe('tcp-backend');
  });

  it('a Passthrough listener carries TLSRoute alone', () => {
    const { listener, tcpParent } = run('Passthrough', false);
    expect(listener.supportedKinds!.map((k: any) => k.kind)).toEqual(['TLSRoute']);
    expect(tcpParent.conditions.find((c: any) => c.type === 'Accepted')).toMatchObject({ status: 'False', reason: 'NotAllowedByListeners' });
  });
});
