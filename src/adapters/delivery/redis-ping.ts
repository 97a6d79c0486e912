// Readiness of Redis: a connection of its own that fails fast (the bus's connections queue
// commands while Redis is away, so a ping on them would wait rather than answer "not ready").
import type { Redis } from 'ioredis';
import { ioredis } from '../../runtime/redis-libraries';

const PING_TIMEOUT_MS = 1000;

export class RedisPing {
  private readonly client: Redis;

  constructor(url: string) {
    this.client = new (ioredis().Redis)(url, { maxRetriesPerRequest: 1, lazyConnect: true, enableOfflineQueue: false });
    this.client.on('error', () => undefined);
    this.client.connect().catch(() => undefined);
  }

  /** Resolves when Redis answers within a second; rejects with why not. */
  async check(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      // a connection still being made (just after start, or after Redis came back) is waited for
      const ping = this.client.status === 'ready'
        ? this.client.ping()
        : new Promise<void>((res) => this.client.once('ready', () => res())).then(() => this.client.ping());
      await Promise.race([
        ping,
        new Promise((_, rej) => { timer = setTimeout(() => rej(new Error('timeout')), PING_TIMEOUT_MS); }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  disconnect(): void {
    this.client.disconnect();
  }
}
