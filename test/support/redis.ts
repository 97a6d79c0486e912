// What a test or a benchmark left on the machine's shared Redis under a prefix of its own: dropped
// when it is done (each run's queue leaves a few keys, and the suites start hundreds of servers).
import Redis from 'ioredis';

/** Deletes every key under `prefix:`; a prefix must be this run's own (another run's keys would go too). */
export async function dropRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
