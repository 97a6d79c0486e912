// A process that subscribes while its Redis connection is still being set up (between 'connect'
// and 'ready') must still receive every notice: once, a server that did a little work at start-up
// subscribed in that window and its proxies saw changes only through the 1 s poll.
import { afterAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { RedisBus } from '../../src/adapters/delivery/bus';
import { needs } from '../support/database';

const need = needs({ redis: true });
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe.skipIf(need.skip)(`the Redis bus${need.skip ? ` (skipped: ${need.why})` : ''}`, () => {
  const buses: RedisBus[] = [];
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
  });

  it('delivers to readers that subscribed at any moment of the connection set-up', async () => {
    const deployment = { prefix: `bus-test-${randomBytes(4).toString('hex')}`, id: randomBytes(8).toString('hex') };
    const publisher = new RedisBus(url, deployment);
    buses.push(publisher);
    // subscribe 0..39 ms after each bus is made: a local connection becomes ready within that range,
    // so some of them subscribe while it is connected but not yet ready
    const received = new Map<number, string[]>();
    await Promise.all(Array.from({ length: 40 }, async (_, delay) => {
      const bus = new RedisBus(url, deployment);
      buses.push(bus);
      await new Promise((r) => setTimeout(r, delay));
      received.set(delay, []);
      bus.subscribe('notices', (m) => m !== '' && received.get(delay)!.push(m));
    }));
    await new Promise((r) => setTimeout(r, 200));
    publisher.publish('notices', 'changed');
    await expect.poll(() => [...received.values()].filter((m) => m.includes('changed')).length, { timeout: 3000 }).toBe(40);
  });
});
