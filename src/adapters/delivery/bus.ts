// Fan-out of "something changed" notices between processes: Redis pub/sub when REDIS_URL is set,
// an in-process emitter in the embedded mode. Notices are hints; readers re-read the store.
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { ioredis } from '../../runtime/redis-libraries';
import { busChannel, busChannelName, type Deployment } from '../queue/redis-keys';

export type Handler = (message: string) => void;

export interface Bus {
  publish(channel: string, message: string): void;
  subscribe(channel: string, handler: Handler): () => void;
  close(): Promise<void>;
}

export class InProcessBus implements Bus {
  private emitter = new EventEmitter().setMaxListeners(0);
  publish(channel: string, message: string): void {
    this.emitter.emit(channel, message);
  }
  subscribe(channel: string, handler: Handler): () => void {
    this.emitter.on(channel, handler);
    return () => this.emitter.off(channel, handler);
  }
  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

// Every notice on Redis carries its deployment's id, so that one of another installation that
// shares the prefix (a REDIS_PREFIX set twice the same) is dropped, never delivered as ours.
export function stamped(deploymentId: string, message: string): string {
  return `${deploymentId}\n${message}`;
}

/** The message of a notice stamped by `deploymentId`, or undefined when another deployment sent it. */
export function readStamped(text: string, deploymentId: string): string | undefined {
  const nl = text.indexOf('\n');
  return nl >= 0 && text.slice(0, nl) === deploymentId ? text.slice(nl + 1) : undefined;
}

export class RedisBus implements Bus {
  private pub: Redis;
  private sub: Redis;
  private local = new EventEmitter().setMaxListeners(0);
  private channels = new Set<string>();

  private readonly prefix: string;

  constructor(url: string, private readonly deployment: Deployment) {
    this.prefix = deployment.prefix;
    const opts = { maxRetriesPerRequest: null, enableOfflineQueue: true, lazyConnect: false } as const;
    const { Redis: Client } = ioredis();
    this.pub = new Client(url, opts);
    this.sub = new Client(url, opts);
    this.pub.on('error', () => undefined);
    this.sub.on('error', () => undefined);
    this.sub.on('message', (channel: string, message: string) => {
      const name = busChannelName(this.prefix, channel);
      const own = readStamped(message, this.deployment.id);
      if (name !== undefined && own !== undefined) this.local.emit(name, own);
    });
    // A SUBSCRIBE sent between 'connect' and 'ready' puts the connection in subscriber mode before
    // ioredis's ready check, which then fails, and no message is ever delivered. So channels are
    // subscribed once the connection is ready, all of them again after every reconnect (a repeated
    // SUBSCRIBE is harmless); readers are woken then in case notices were missed.
    this.sub.on('ready', () => {
      if (this.channels.size) this.sub.subscribe(...[...this.channels].map((c) => busChannel(this.prefix, c))).catch(() => undefined);
      for (const c of this.channels) this.local.emit(c, '');
    });
  }

  publish(channel: string, message: string): void {
    this.pub.publish(busChannel(this.prefix, channel), stamped(this.deployment.id, message)).catch(() => undefined);
  }

  subscribe(channel: string, handler: Handler): () => void {
    if (!this.channels.has(channel)) {
      this.channels.add(channel);
      if (this.sub.status === 'ready') this.sub.subscribe(busChannel(this.prefix, channel)).catch(() => undefined);
    }
    this.local.on(channel, handler);
    return () => this.local.off(channel, handler);
  }

  async close(): Promise<void> {
    this.local.removeAllListeners();
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
    this.pub.disconnect();
    this.sub.disconnect();
  }
}
