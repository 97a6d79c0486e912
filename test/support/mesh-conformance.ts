// The mesh (GAMMA) conformance corpus (mesh/ of the conformance corpus) as data: its cases, its base
// made ready for a store without Kubernetes (cluster IPs given to Services as kube-apiserver's
// allocator would, EndpointSlices standing for the dropped Deployments), and what a request entry
// asks: which client namespace, which Service port or pod, and what request.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { conformanceDir } from './corpora';

export const MESH_DIR = join(conformanceDir(), 'mesh');

export interface MeshCase {
  name: string;
  features: string[];
  manifests: any[];
  expect: { requests?: any[]; routes?: any[] };
}

export function loadMeshCases(dir = MESH_DIR): MeshCase[] {
  const casesDir = join(dir, 'cases');
  if (!existsSync(casesDir)) return [];
  return readdirSync(casesDir).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(casesDir, f), 'utf8')));
}

export function loadMeshBase(dir = MESH_DIR): any[] {
  return existsSync(join(dir, 'base.json')) ? JSON.parse(readFileSync(join(dir, 'base.json'), 'utf8')) : [];
}

export const meshTotals = (dir = MESH_DIR): Record<string, number> =>
  existsSync(join(dir, 'index.json')) ? JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')).totals ?? {} : {};

/**
 * Gives every Service of the list without a cluster IP one, in list order, from 10.96.0.0/16, as
 * kube-apiserver's allocator would on create (a Service applied again keeps its address).
 */
export function withClusterIPs(objects: any[], given = new Map<string, string>()): any[] {
  return objects.map((o) => {
    if (o.kind !== 'Service' || o.spec?.clusterIP || o.spec?.type === 'ExternalName') return o;
    const k = `${o.metadata.namespace}/${o.metadata.name}`;
    if (!given.has(k)) given.set(k, `10.96.${given.size >> 8}.${(given.size & 255) + 10}`);
    return { ...o, spec: { ...o.spec, clusterIP: given.get(k), clusterIPs: [given.get(k)] } };
  });
}

/**
 * The addresses of the mesh workloads' pods, for the Pod targets of MeshFrontend ({POD_IP}): the
 * workload of a Service selects pods whose addresses the EndpointSlice standing for it lists; a
 * Pod target is the workload of the same name in that namespace.
 */
export function workloadOf(r: any): string {
  const v = r.target?.podLabels?.version;
  return v ? `echo-${v}` : r.client?.workload;
}

/** Every request entry of a case (mesh cases have no steps). */
export const meshRequests = (c: MeshCase): any[] => c.expect.requests ?? [];

/**
 * The gRPC method the echo client calls: upstream's mesh entries name none (its echo client calls
 * the Istio echo app's Echo method), and the mesh GRPCRoutes match on headers only.
 */
export const MESH_GRPC_METHOD = '/proto.EchoTestService/Echo';

/** The request of an entry as resolve takes it (protocol, Host, path, headers, query). */
export function meshRequestOf(r: any): any {
  const q = r.request;
  return {
    protocol: q.protocol === 'grpc' ? 'GRPC' : 'HTTP',
    ...(q.host !== undefined ? { hostname: q.host } : {}),
    path: q.protocol === 'grpc' ? q.path ?? MESH_GRPC_METHOD : q.path ?? '/',
    ...(q.method ? { method: q.method } : {}),
    ...(q.headers ? { headers: q.headers } : {}),
    ...(q.rawQuery !== undefined ? { rawQuery: q.rawQuery } : q.query ? { query: q.query } : {}),
  };
}
