// The recompute jobs: one per Gateway, one per GatewayClass. The queue, the dispatcher and the
// worker name them only through these functions.
import { depKey, parseDepKey, type Dependency } from '../../core/deps';

export type Job = Extract<Dependency, { kind: 'Gateway' | 'GatewayClass' }>;

// a job's key is the dependency key of what it recomputes
export function jobKey(job: Job): string {
  return depKey(job);
}

export function parseJob(key: string): Job | undefined {
  const d = parseDepKey(key);
  return d && (d.kind === 'Gateway' || d.kind === 'GatewayClass') ? d : undefined;
}
