// The world bench:proxy and bench:nginx measure a data plane in: a GatewayClass, Service `echo` in
// namespace app whose one endpoint is the reference nginx's fixed-answer backend, Gateways gw-0..n-1 in
// namespace infra (one HTTP listener each, routes from every namespace), and a proxy token for them.
import type { lightClient } from './support';

const GW = 'gateway.networking.k8s.io/v1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Call = ReturnType<typeof lightClient>;

/** A PUT that tries again on 409, 429 and 5xx (a loaded machine's API may shed or race), and throws on anything else. */
export function retryingPut(call: Call): (path: string, body: unknown) => Promise<void> {
  return async (path, body) => {
    for (let attempt = 0; ; attempt++) {
      const r = await call('PUT', path, JSON.stringify(body));
      if (r.status === 200 || r.status === 201) return;
      if (attempt >= 5 || (r.status !== 409 && r.status !== 429 && r.status < 500)) throw new Error(`PUT ${path}: ${r.status} ${r.body}`);
      await sleep(50 * (attempt + 1));
    }
  };
}

/** Writes the world and answers the proxy token minted for its Gateways. */
export async function seedProxyWorld(call: Call, o: { backendPort: number; gateways: number; listenerPort: (g: number) => number; tokenName: string }): Promise<string> {
  const put = retryingPut(call);
  await put('/api/v1/gatewayclasses/sy', { apiVersion: GW, kind: 'GatewayClass', spec: { controllerName: 'switchyard.dev/gateway-controller' } });
  await put('/api/v1/namespaces/app/services/echo', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'http', port: 80 }] } });
  await put('/api/v1/namespaces/app/endpointslices/echo-1', {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'echo' } },
    addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'http', port: o.backendPort }],
  });
  for (let g = 0; g < o.gateways; g++) {
    await put(`/api/v1/namespaces/infra/gateways/gw-${g}`, { apiVersion: GW, kind: 'Gateway', spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', protocol: 'HTTP', port: o.listenerPort(g), allowedRoutes: { namespaces: { from: 'All' } } }] } });
  }
  const minted = await call('POST', '/api/v1/tokens', JSON.stringify({ name: o.tokenName, role: 'proxy', gateways: Array.from({ length: o.gateways }, (_, g) => `infra/gw-${g}`) }));
  if (minted.status !== 201) throw new Error(`minting a proxy token: ${minted.status} ${minted.body}`);
  return (JSON.parse(minted.body) as { token: string }).token;
}
