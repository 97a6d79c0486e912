// The ready endpoints of one Service port, from the EndpointSlices labelled
// kubernetes.io/service-name=<service>. Ready as Kubernetes defines it: an unset conditions.ready
// counts as ready; terminating endpoints are left out. The port is the slice's port of the same
// name as the Service port (which resolves named targetPorts), else the numeric targetPort.
import type { ResolvedEndpoint } from '../model/world';
import type { EndpointSlice, Service, ServicePort } from '../model/objects';
import { memoSlot } from '../translate/context';
import { key, type WorldIndex, type WorldView } from './lookup';

export function servicePortFor(service: Service, port: number | undefined, protocol?: string): ServicePort | undefined {
  if (port === undefined) return undefined;
  const ports = (service.spec?.ports ?? []).filter((p) => p?.port === port);
  // a Service may serve one port number over TCP and UDP (DNS on 53): take the one the route speaks
  return (protocol === undefined ? undefined : ports.find((p) => (p.protocol ?? 'TCP') === protocol)) ?? ports[0];
}

// Every backendRef to the same Service port resolves to the same endpoints: computed once per
// table of slices (a world with other slices gets another table), shared, never modified by callers.
const ENDPOINTS = memoSlot('refs.endpoints', () => new WeakMap<object, WeakMap<Service, WeakMap<ServicePort, ResolvedEndpoint[]>>>());

export function endpointsFor(view: WorldView, service: Service, servicePort: ServicePort): ResolvedEndpoint[] {
  const index = view.index;
  const memo = view.ctx.memo(ENDPOINTS);
  let byService = memo.get(index.slicesByService);
  if (!byService) memo.set(index.slicesByService, (byService = new WeakMap()));
  let byPort = byService.get(service);
  if (!byPort) byService.set(service, (byPort = new WeakMap()));
  let out = byPort.get(servicePort);
  if (!out) byPort.set(servicePort, (out = computeEndpoints(index, service, servicePort)));
  return out;
}

function computeEndpoints(index: WorldIndex, service: Service, servicePort: ServicePort): ResolvedEndpoint[] {
  const slices = index.slicesByService.get(key(service.metadata.namespace, service.metadata.name)) ?? [];
  const out: ResolvedEndpoint[] = [];
  const seen = new Set<string>();
  const portName = servicePort.name ?? '';
  const protocol = servicePort.protocol ?? 'TCP';
  for (const slice of slices) {
    const port = slicePort(slice, portName, protocol, servicePort);
    if (port === undefined) continue;
    for (const ep of slice.endpoints ?? []) {
      if (!ep || ep.conditions?.ready === false || ep.conditions?.terminating === true) continue;
      for (const address of ep.addresses ?? []) {
        const k = `${address}|${port}`;
        if (typeof address !== 'string' || seen.has(k)) continue;
        seen.add(k);
        out.push({ address, port });
      }
    }
  }
  return out;
}

export function slicePort(slice: EndpointSlice, portName: string, protocol: string, servicePort: ServicePort): number | undefined {
  const ports = slice.ports ?? [];
  const byName = ports.find((p) => (p?.name ?? '') === portName && (p?.protocol ?? 'TCP') === protocol);
  if (byName && typeof byName.port === 'number') return byName.port;
  const target = servicePort.targetPort;
  if (typeof target === 'string' && target !== '') {
    const named = ports.find((p) => p?.name === target && typeof p.port === 'number');
    if (named) return named.port;
    if (/^\d+$/.test(target)) return Number(target);
    return undefined; // a named targetPort the slice does not resolve
  }
  if (ports.length > 0 && !byName) return undefined; // the slice serves other ports only
  if (typeof target === 'number') return target;
  return typeof servicePort.port === 'number' ? servicePort.port : undefined;
}
