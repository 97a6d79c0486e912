// The endpoints of one Service port as Linkerd's Destination.Get streams them: the first message
// (every endpoint, or no_endpoints), then for each change what was added and what was removed.
// Ready as the Gateway tables count it (src/core/refs/endpoints.ts): an unset `ready` is ready,
// terminating endpoints are left out; FQDN slices carry no address a TcpAddress can hold.
import type { EndpointSlice, Service } from '../model/objects';
import { servicePortFor, slicePort } from '../refs/endpoints';
import { canonicalIP, ipMessage } from './ip';

/** The weight of every endpoint (Linkerd's own default): the proxy balances them evenly. */
export const ENDPOINT_WEIGHT = 10_000;

export interface LinkerdEndpoint {
  /** canonical IP text and port: what an endpoint is known by from one message to the next */
  key: string;
  ip: string;
  port: number;
  pod?: { namespace: string; name: string };
  zone?: string;
  nodeName?: string;
}

export interface EndpointsState {
  /** false: no such Service (the client may fall back to DNS); true: it exists, whatever its endpoints */
  exists: boolean;
  endpoints: LinkerdEndpoint[];
}

export function serviceEndpoints(service: Service | null, port: number, slices: readonly EndpointSlice[]): EndpointsState {
  // an ExternalName Service is a DNS name, which is what the client falls back to
  if (!service || service.spec?.type === 'ExternalName') return { exists: false, endpoints: [] };
  const servicePort = servicePortFor(service, port, 'TCP');
  if (!servicePort) return { exists: true, endpoints: [] };
  const out: LinkerdEndpoint[] = [];
  const seen = new Set<string>();
  const protocol = servicePort.protocol ?? 'TCP';
  for (const slice of slices) {
    if (slice.addressType === 'FQDN') continue;
    const target = slicePort(slice, servicePort.name ?? '', protocol, servicePort);
    if (target === undefined) continue;
    for (const ep of slice.endpoints ?? []) {
      if (!ep || ep.conditions?.ready === false || ep.conditions?.terminating === true) continue;
      for (const address of ep.addresses ?? []) {
        const ip = typeof address === 'string' ? canonicalIP(address) : null;
        if (!ip) continue;
        const key = `${ip}|${target}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const ref = ep.targetRef as { kind?: string; name?: string; namespace?: string } | undefined;
        const e: LinkerdEndpoint = { key, ip, port: target };
        if (ref?.kind === 'Pod' && ref.name) e.pod = { namespace: ref.namespace || slice.metadata.namespace || '', name: ref.name };
        const zone = (ep as { zone?: string }).zone;
        const nodeName = (ep as { nodeName?: string }).nodeName;
        if (zone) e.zone = zone;
        if (nodeName) e.nodeName = nodeName;
        out.push(e);
      }
    }
  }
  out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { exists: true, endpoints: out };
}

// The messages, as plain objects in the shape of destination.proto (field names as written there).
type TcpAddress = { ip: ReturnType<typeof ipMessage>; port: number };
export type Update =
  | { add: { addrs: WeightedAddr[]; metric_labels: Record<string, string> } }
  | { remove: { addrs: TcpAddress[] } }
  | { no_endpoints: { exists: boolean } };
interface WeightedAddr {
  addr: TcpAddress;
  weight: number;
  metric_labels: Record<string, string>;
  resource_ref?: { resource: { group: string; kind: string; name: string; namespace: string } };
}

const tcp = (e: LinkerdEndpoint): TcpAddress => ({ ip: ipMessage(e.ip), port: e.port });

function weighted(e: LinkerdEndpoint): WeightedAddr {
  const labels: Record<string, string> = {};
  if (e.pod) labels.pod = e.pod.name;
  if (e.zone) labels.zone = e.zone;
  if (e.nodeName) labels.node = e.nodeName;
  const w: WeightedAddr = { addr: tcp(e), weight: ENDPOINT_WEIGHT, metric_labels: labels };
  if (e.pod) w.resource_ref = { resource: { group: 'core', kind: 'Pod', name: e.pod.name, namespace: e.pod.namespace } };
  return w;
}

/** The labels the proxy puts on every metric of the set (those Linkerd's own controller sets). */
export function setLabels(namespace: string, service: string): Record<string, string> {
  return { namespace, service };
}

/** What a new stream is sent first. */
export function firstUpdates(state: EndpointsState, labels: Record<string, string>): Update[] {
  if (state.endpoints.length === 0) return [{ no_endpoints: { exists: state.exists } }];
  return [{ add: { addrs: state.endpoints.map(weighted), metric_labels: labels } }];
}

/**
 * From one state to the next: the new endpoints first, then the gone ones (so that a client never
 * holds an empty set in between while both are there), and no_endpoints when none is left or when
 * the Service came or went without endpoints either side.
 */
export function nextUpdates(prev: EndpointsState, next: EndpointsState, labels: Record<string, string>): Update[] {
  const before = new Map(prev.endpoints.map((e) => [e.key, e]));
  const after = new Map(next.endpoints.map((e) => [e.key, e]));
  const added = next.endpoints.filter((e) => !before.has(e.key) || !sameDetails(before.get(e.key)!, e));
  const removed = prev.endpoints.filter((e) => !after.has(e.key));
  const out: Update[] = [];
  if (added.length) out.push({ add: { addrs: added.map(weighted), metric_labels: labels } });
  if (removed.length) out.push({ remove: { addrs: removed.map(tcp) } });
  if (next.endpoints.length === 0 && (removed.length > 0 || prev.exists !== next.exists)) out.push({ no_endpoints: { exists: next.exists } });
  return out;
}

function sameDetails(a: LinkerdEndpoint, b: LinkerdEndpoint): boolean {
  return a.pod?.name === b.pod?.name && a.pod?.namespace === b.pod?.namespace && a.zone === b.zone && a.nodeName === b.nodeName;
}
