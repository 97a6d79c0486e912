// The endpoints an EDS assignment lists for a backend: each address and port once (a Service's
// EndpointSlices may repeat an endpoint), in the table's order. Envoy's and proxyless clients' alike.
import type { CompiledBackend } from '../compile';

export function endpointsOnce(b: CompiledBackend | null): { address: string; port: number }[] {
  const seen = new Set<string>();
  return (b?.endpoints ?? []).filter((e) => {
    const k = `${e.address}|${e.port}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
}
