// The Gateway the delivery tests serve: class "sy", Gateway infra/edge with one HTTP listener that
// admits routes from every namespace, Service app/web with one endpoint, and routes to it.
import { expect } from 'vitest';
import { reconciled, type TestServer } from './server';

export const GW = 'gateway.networking.k8s.io/v1';

export const edgeGateway = () => ({ apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] } });

/** An HTTPRoute of `path` to app/web, on infra/`gateway`. */
export const edgeRoute = (path: string, gateway = 'edge') => ({
  apiVersion: GW, kind: 'HTTPRoute',
  spec: { parentRefs: [{ name: gateway, namespace: 'infra' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [{ name: 'web', port: 80 }] }] },
});

/** Writes the class, infra/edge, app/web and `routes` routes app/r0.. (of paths /r0..), and waits until they are reconciled. */
export async function seedEdgeGateway(s: TestServer, routes: number): Promise<void> {
  const put = async (p: string, b: unknown) => expect((await s.api('PUT', p, b)).status).toBeLessThan(300);
  await put('/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  await put('/api/v1/namespaces/infra/gateways/edge', edgeGateway());
  await put('/api/v1/namespaces/app/services/web', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80 }] } });
  await put('/api/v1/namespaces/app/endpointslices/web-1', { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'web' } }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 8080 }] });
  for (let i = 0; i < routes; i++) await put(`/api/v1/namespaces/app/httproutes/r${i}`, edgeRoute(`/r${i}`));
  await reconciled(s);
}
