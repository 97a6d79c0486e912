// What a reconcile job recomputes, named by its key: the object's stream key, so that a job key in
// a log line reads as the object it serves ("Gateway/<ns>/<name>", "GatewayClass//<name>").
import { streamKey } from '../../core/objects/keys';

export type ReconcileJob = { kind: 'Gateway'; namespace: string; name: string } | { kind: 'GatewayClass'; name: string };

export function gatewayJob(namespace: string, name: string): string {
  return streamKey('Gateway', namespace, name);
}

export function gatewayClassJob(name: string): string {
  return streamKey('GatewayClass', '', name);
}

export function jobKey(job: ReconcileJob): string {
  return job.kind === 'Gateway' ? gatewayJob(job.namespace, job.name) : gatewayClassJob(job.name);
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
  throw new Error(`not a reconcile job key: "${key}"`);
}
