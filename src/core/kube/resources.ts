// How each stored kind appears in the Kubernetes API: resource names, short names, categories and
// the columns `kubectl get` prints (those of upstream's CRDs for Gateway API kinds, kube-apiserver's
// for the core ones). Kinds missing here still get discovery and a Name/Age table from the kinds table.
import { KINDS, type KindInfo } from '../model/kinds';

/** A printed column: how to read its cell from an object (`wide`: only in -o wide). */
export interface Column {
  name: string;
  type: 'string' | 'integer' | 'date';
  description: string;
  wide?: boolean;
  cell: (o: ObjectLike) => string | number;
}

// any: columns read arbitrary fields of any kind's spec and status
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ObjectLike = Record<string, any>;

export interface KubeResource {
  info: KindInfo;
  group: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  /** columns between Name and Age (Age comes last, as upstream prints it) */
  columns: Column[];
  /** columns after Age (upstream's -o wide extras, such as a GatewayClass's Description) */
  trailing?: Column[];
}

const GW = 'gateway.networking.k8s.io';

function condition(o: ObjectLike, type: string): string {
  const c = (o.status?.conditions ?? []).find((x: { type?: string }) => x?.type === type);
  return c ? String(c.status) : '';
}

const hostnames: Column = { name: 'Hostnames', type: 'string', description: 'The hostnames the route matches', cell: (o) => (o.spec?.hostnames ?? []).join(',') };

const EXTRA: Record<string, Omit<KubeResource, 'info' | 'group'>> = {
  GatewayClass: {
    singular: 'gatewayclass', shortNames: ['gc'], categories: ['gateway-api'],
    columns: [
      { name: 'Controller', type: 'string', description: 'The controller of this class', cell: (o) => o.spec?.controllerName ?? '' },
      { name: 'Accepted', type: 'string', description: 'Whether the controller accepted the class', cell: (o) => condition(o, 'Accepted') },
    ],
    trailing: [{ name: 'Description', type: 'string', description: 'The class description', wide: true, cell: (o) => o.spec?.description ?? '' }],
  },
  Gateway: {
    singular: 'gateway', shortNames: ['gtw'], categories: ['gateway-api'],
    columns: [
      { name: 'Class', type: 'string', description: 'The GatewayClass', cell: (o) => o.spec?.gatewayClassName ?? '' },
      { name: 'Address', type: 'string', description: 'The addresses given to the Gateway', cell: (o) => (o.status?.addresses ?? []).map((a: { value?: string }) => a.value).join(',') },
      { name: 'Programmed', type: 'string', description: 'Whether the Gateway is programmed', cell: (o) => condition(o, 'Programmed') },
    ],
  },
  HTTPRoute: { singular: 'httproute', shortNames: [], categories: ['gateway-api'], columns: [hostnames] },
  GRPCRoute: { singular: 'grpcroute', shortNames: [], categories: ['gateway-api'], columns: [hostnames] },
  TLSRoute: { singular: 'tlsroute', shortNames: [], categories: ['gateway-api'], columns: [hostnames] },
  TCPRoute: { singular: 'tcproute', shortNames: [], categories: ['gateway-api'], columns: [] },
  UDPRoute: { singular: 'udproute', shortNames: [], categories: ['gateway-api'], columns: [] },
  ReferenceGrant: { singular: 'referencegrant', shortNames: ['refgrant'], categories: ['gateway-api'], columns: [] },
  BackendTLSPolicy: { singular: 'backendtlspolicy', shortNames: ['btlspolicy'], categories: ['gateway-api'], columns: [] },
  ListenerSet: { singular: 'listenerset', shortNames: ['lset'], categories: ['gateway-api'], columns: [] },
  Namespace: {
    singular: 'namespace', shortNames: ['ns'], categories: [],
    columns: [{ name: 'Status', type: 'string', description: 'The phase of the namespace', cell: () => 'Active' }],
  },
  Service: {
    singular: 'service', shortNames: ['svc'], categories: ['all'],
    columns: [
      { name: 'Type', type: 'string', description: 'The type of the service', cell: (o) => o.spec?.type ?? 'ClusterIP' },
      { name: 'Cluster-IP', type: 'string', description: 'The cluster IP', cell: (o) => o.spec?.clusterIP ?? '<none>' },
      { name: 'External-IP', type: 'string', description: 'The external IPs', cell: (o) => (o.spec?.externalIPs ?? []).join(',') || '<none>' },
      { name: 'Port(s)', type: 'string', description: 'The ports', cell: (o) => (o.spec?.ports ?? []).map((p: { port?: number; protocol?: string }) => `${p.port}/${p.protocol ?? 'TCP'}`).join(',') || '<none>' },
    ],
    trailing: [{ name: 'Selector', type: 'string', description: 'The pod selector', wide: true, cell: (o) => Object.entries(o.spec?.selector ?? {}).map(([k, v]) => `${k}=${v}`).join(',') || '<none>' }],
  },
  EndpointSlice: {
    singular: 'endpointslice', shortNames: [], categories: [],
    columns: [
      { name: 'AddressType', type: 'string', description: 'The address type', cell: (o) => o.addressType ?? '' },
      { name: 'Ports', type: 'string', description: 'The ports', cell: (o) => (o.ports ?? []).map((p: { port?: number }) => p.port).join(',') || '<unset>' },
      { name: 'Endpoints', type: 'string', description: 'The endpoint addresses', cell: (o) => (o.endpoints ?? []).flatMap((e: { addresses?: string[] }) => e.addresses ?? []).join(',') || '<unset>' },
    ],
  },
  Secret: {
    singular: 'secret', shortNames: [], categories: [],
    columns: [
      { name: 'Type', type: 'string', description: 'The type of the secret', cell: (o) => o.type ?? 'Opaque' },
      { name: 'Data', type: 'integer', description: 'The number of data entries', cell: (o) => Object.keys(o.data ?? {}).length },
    ],
  },
  ConfigMap: {
    singular: 'configmap', shortNames: ['cm'], categories: [],
    columns: [{ name: 'Data', type: 'integer', description: 'The number of data entries', cell: (o) => Object.keys(o.data ?? {}).length + Object.keys(o.binaryData ?? {}).length }],
  },
};

function resourceOf(info: KindInfo): KubeResource {
  const extra = EXTRA[info.kind] ?? { singular: info.kind.toLowerCase(), shortNames: [], categories: info.group === GW ? ['gateway-api'] : [], columns: [] };
  return { info, group: info.group, ...extra };
}

export const KUBE_RESOURCES: readonly KubeResource[] = KINDS.map(resourceOf);

/** The versions ("v1", "v1beta1", ...) a kind is served in, from its accepted apiVersions. */
export function versionsOf(info: KindInfo): string[] {
  return Object.keys(info.versions).map((av) => av.split('/').pop()!);
}

export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** The resources served at one group/version. */
export function resourcesAt(group: string, version: string): KubeResource[] {
  return KUBE_RESOURCES.filter((r) => r.group === group && Object.hasOwn(r.info.versions, apiVersionOf(group, version)));
}

export function resourceAt(group: string, version: string, plural: string): KubeResource | undefined {
  return resourcesAt(group, version).find((r) => r.info.plural === plural);
}

const ORDER = ['v1', 'v1beta1', 'v1alpha3', 'v1alpha2', 'v1alpha1'];

/** The groups served, each with its versions, the preferred (most stable) first. */
export function groups(): { name: string; versions: string[] }[] {
  const byGroup = new Map<string, Set<string>>();
  for (const r of KUBE_RESOURCES) {
    const set = byGroup.get(r.group) ?? new Set<string>();
    for (const v of versionsOf(r.info)) set.add(v);
    byGroup.set(r.group, set);
  }
  const rank = (v: string) => (ORDER.includes(v) ? ORDER.indexOf(v) : ORDER.length);
  return [...byGroup].map(([name, vs]) => ({ name, versions: [...vs].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)) }));
}
