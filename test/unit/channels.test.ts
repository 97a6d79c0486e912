// Bus channels: what a publisher encodes a subscriber decodes, and the empty wake-up is no message.
import { describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/adapters/delivery/bus';
import { eventsChannel, publish, reconciledChannel, snapshotChannel, snapshotDeltaChannel, snapshotNotice, subscribe } from '../../src/adapters/delivery/channels';

describe('bus channels', () => {
  it('round-trip each message shape', () => {
    expect(eventsChannel.decode(eventsChannel.encode({ position: 1048577 }))).toEqual({ position: 1048577 });
    expect(eventsChannel.encode({})).toBe('');
    expect(reconciledChannel.decode(reconciledChannel.encode({ key: 'Gateway/infra/edge' }))).toEqual({ key: 'Gateway/infra/edge' });
    const notice = { gateway: 'infra/edge', version: 3, body: '{"gateway":{"namespace":"infra","name":"edge"},"version":3}' };
    expect(snapshotChannel.decode(snapshotChannel.encode(notice))).toEqual(notice);
    expect(snapshotChannel.decode(snapshotNotice('infra/edge', null))).toEqual({ gateway: 'infra/edge', version: null });
  });

  it('leave a body too large for pub/sub out of the notice', () => {
    const body = 'x'.repeat((1 << 20) + 1);
    expect(snapshotChannel.decode(snapshotNotice('infra/edge', 4, body))).toEqual({ gateway: 'infra/edge', version: 4 });
  });

  it('carry a worker\'s delta on a channel of its own, and refuse a delta notice without its delta', () => {
    const m = { gateway: 'infra/edge', from: 2, to: 3, text: JSON.stringify({ version: 3, fromVersion: 2, changes: [{ item: { note: 'a\nb' } }] }) };
    expect(snapshotDeltaChannel.name).not.toBe(snapshotChannel.name);
    expect(snapshotDeltaChannel.decode(snapshotDeltaChannel.encode(m))).toEqual(m);
    expect(snapshotDeltaChannel.decode('')).toBeUndefined();
    expect(() => snapshotDeltaChannel.decode(JSON.stringify({ gateway: 'infra/edge', from: 2, to: 3 }))).toThrow();
  });

  it('hand a wake-up to subscribers as undefined and drop what cannot be read', async () => {
    const bus = new InProcessBus();
    const seen: unknown[] = [];
    const stop = subscribe(bus, snapshotChannel, (m) => seen.push(m));
    bus.publish(snapshotChannel.name, '');
    bus.publish(snapshotChannel.name, 'not json');
    bus.publish(snapshotChannel.name, '{"version":1}');
    publish(bus, snapshotChannel, { gateway: 'a/b', version: 1 });
    stop();
    publish(bus, snapshotChannel, { gateway: 'a/b', version: 2 });
    expect(seen).toEqual([undefined, { gateway: 'a/b', version: 1 }]);
    await bus.close();
  });
});
