// Every Redis key and pub/sub channel name Switchyard uses, built here and nowhere else. BullMQ
// builds its own keys under `<prefix>:<queue>:`; ours sit beside them under the same two parts.
import { createHash } from 'node:crypto';

/** What names one deployment on a shared Redis: derived from the identity of its database. */
export interface Deployment {
  /** the prefix of every key and channel (REDIS_PREFIX, else derived) */
  prefix: string;
  /** stamped on every notice; a notice of another deployment is dropped */
  id: string;
}

/**
 * Two installations on one Redis (the same db number or not: pub/sub ignores it) must never meet.
 * `identity` is the database's (cluster id and name): processes of one deployment share it.
 */
export function deploymentOf(identity: string, prefix?: string): Deployment {
  const id = createHash('sha256').update(identity).digest('hex').slice(0, 16);
  return { prefix: prefix || `switchyard-${id.slice(0, 12)}`, id };
}

/**
 * One queue per controller and deployment sharing a Redis (two deployments given the same prefix
 * still never take each other's jobs); the name is short and safe in a key whatever the names.
 */
export function reconcileQueueName(controllerName: string, deploymentId = ''): string {
  return `reconcile-${createHash('sha256').update(`${controllerName}|${deploymentId}`).digest('hex').slice(0, 12)}`;
}

/** The hashes of wanted and done log positions per job key (see adapters/queue/bullmq.ts). */
export function positionHashes(prefix: string, queue: string): { want: string; done: string } {
  return { want: `${prefix}:${queue}:want`, done: `${prefix}:${queue}:done` };
}

/** BullMQ refuses ":" in a custom job id. */
export function bullJobId(jobKey: string): string {
  return jobKey.replaceAll(':', '_');
}

/** A bus channel on Redis pub/sub, and back: undefined for a channel that is not the bus's. */
export function busChannel(prefix: string, channel: string): string {
  return `${prefix}:${channel}`;
}

export function busChannelName(prefix: string, redisChannel: string): string | undefined {
  const head = `${prefix}:`;
  return redisChannel.startsWith(head) ? redisChannel.slice(head.length) : undefined;
}
