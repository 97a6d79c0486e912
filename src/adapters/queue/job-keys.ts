// What a reconcile job recomputes, named by its key: the object's stream key, so that a job key in
// a log line reads as the object it serves ("Gateway/<ns>/<name>", "GatewayClass//<name>").
import { streamKey } from '../../core/objects/keys';

export type ReconcileJob = { kind: 'Gateway'; namespace: string; name: string } | { kind: 'GatewayClass'; name: string }
  /** the mesh table of the clients of one namespace (GAMMA) */
  | { kind: 'Mesh'; namespace: string }
  /** the Service parent entries of every route's status (they do not depend on the client) */
  | { kind: 'MeshStatus' };

/** The one name of each mesh job (a key names its kind, a namespace and a name). */
const MESH_TABLE = 'table';
const MESH_STATUS = 'routes';

export function gatewayJob(namespace: string, name: string): string {
  return streamKey('Gateway', namespace, name);
}

export function gatewayClassJob(name: string): string {
  return streamKey('GatewayClass', '', name);
}

export function meshJob(namespace: string): string {
  return streamKey('Mesh', namespace, MESH_TABLE);
}

export const MESH_STATUS_JOB = streamKey('MeshStatus', '', MESH_STATUS);

export function jobKey(job: ReconcileJob): string {
  switch (job.kind) {
    case 'Gateway': return gatewayJob(job.namespace, job.name);
    case 'GatewayClass': return gatewayClassJob(job.name);
    case 'Mesh': return meshJob(job.namespace);
    case 'MeshStatus': return MESH_STATUS_JOB;
  }
}

/** Namespaces hold no "/"; a name may (it is everything after the second "/"). */
export function parseJob(key: string): ReconcileJob {
  const first = key.indexOf('/');
  const second = first < 0 ? -1 : key.indexOf('/', first + 1);
  if (second < 0) throw new Error(`not a reconcile job key: "${key}"`);
  const kind = key.slice(0, first);
  const namespace = key.slice(first + 1, second);
  const name = key.slice(second + 1);
  if (kind === 'Gateway' && namespace !== '') return { kind, namespace, name };
  if (kind === 'GatewayClass' && namespace === '') return { kind, name };
  if (kind === 'Mesh' && namespace !== '' && name === MESH_TABLE) return { kind, namespace };
  if (kind === 'MeshStatus' && namespace === '' && name === MESH_STATUS) return { kind };
  throw new Error(`not a reconcile job key: "${key}"`);
}
