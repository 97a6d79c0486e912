// Reconcile job keys and Redis key names: built in one place, and a job key reads back as its job.
import { describe, expect, it } from 'vitest';
import { gatewayClassJob, gatewayJob, jobKey, parseJob } from '../../src/adapters/queue/job-keys';
import { bullJobId, busChannel, busChannelName, positionHashes, reconcileQueueName } from '../../src/adapters/queue/redis-keys';

describe('reconcile job keys', () => {
  it('name a Gateway or a GatewayClass as its stream key, and parse back', () => {
    expect(gatewayJob('infra', 'edge')).toBe('Gateway/infra/edge');
    expect(gatewayClassJob('public')).toBe('GatewayClass//public');
    expect(parseJob('Gateway/infra/edge')).toEqual({ kind: 'Gateway', namespace: 'infra', name: 'edge' });
    expect(parseJob('GatewayClass//public')).toEqual({ kind: 'GatewayClass', name: 'public' });
    for (const job of [{ kind: 'Gateway', namespace: 'a', name: 'b/c' }, { kind: 'GatewayClass', name: 'x' }] as const) expect(parseJob(jobKey(job))).toEqual(job);
  });

  it('refuse keys that name no job', () => {
    for (const bad of ['Gateway', 'Gateway/infra', 'Gateway//edge', 'GatewayClass/ns/x', 'HTTPRoute/a/b']) expect(() => parseJob(bad), bad).toThrow(/not a reconcile job key/);
  });
});

describe('redis keys', () => {
  it('keep the names the deployed queue and bus use', () => {
    expect(positionHashes('switchyard', 'reconcile-abc')).toEqual({ want: 'switchyard:reconcile-abc:want', done: 'switchyard:reconcile-abc:done' });
    expect(reconcileQueueName('switchyard.dev/gateway-controller')).toMatch(/^reconcile-[0-9a-f]{12}$/);
    expect(bullJobId('Gateway/a:b/c')).toBe('Gateway/a_b/c');
    expect(busChannel('switchyard', 'snapshots')).toBe('switchyard:snapshots');
    expect(busChannelName('switchyard', 'switchyard:snapshots')).toBe('snapshots');
    expect(busChannelName('switchyard', 'other:snapshots')).toBeUndefined();
  });
});
