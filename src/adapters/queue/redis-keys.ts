// Every Redis key and pub/sub channel name Switchyard uses, built here and nowhere else. BullMQ
// builds its own keys under `<prefix>:<queue>:`; ours sit beside them under the same two parts.
import { createHash } from 'node:crypto';

/** The default prefix of the queue's keys (tests pass a fresh one) and of the bus's channels. */
export const DEFAULT_PREFIX = 'switchyard';

/** One queue per controller sharing a Redis; the name is short and safe in a key whatever the controller name. */
export function reconcileQueueName(controllerName: string): string {
  return `reconcile-${createHash('sha256').update(controllerName).digest('hex').slice(0, 12)}`;
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
