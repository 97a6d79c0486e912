// Fan-out of "something changed" notices between processes: Redis pub/sub when REDIS_URL is set,
// an in-process emitter in the embedded mode. Notices are hints; readers re-read the store.
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import { busChannel, busChannelName, DEFAULT_PREFIX } from '../queue/redis-keys';

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

export class RedisBus implements Bus {
  private pub: Redis;
  private sub: Redis;
  private local = new EventEmitter().setMaxListeners(0);
  private channels = new Set<string>();

  constructor(url: string, private readonly prefix = DEFAULT_PREFIX) {
    const opts = { maxRetriesPerRequest: null, enableOfflineQueue: true, lazyConnect: false } as const;
    this.pub = new Redis(url, opts);
    this.sub = new Redis(url, opts);
    this.pub.on('error', () => undefined);
    this.sub.on('error', () => undefined);
    this.sub.on('message', (channel: string, message: string) => {
      const name = busChannelName(this.prefix, channel);
      if (name !== undefined) this.local.emit(name, message);
    });
    // After a reconnect ioredis re-subscribes by itself; wake every reader in case notices were missed.
    this.sub.on('ready', () => {
      for (const c of this.channels) this.local.emit(c, '');
    });
  }

  publish(channel: string, message: string): void {
    this.pub.publish(busChannel(this.prefix, channel), message).catch(() => undefined);
  }

  subscribe(channel: string, handler: Handler): () => void {
    if (!this.channels.has(channel)) {
      this.channels.add(channel);
      this.sub.subscribe(busChannel(this.prefix, channel)).catch(() => undefined);
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
