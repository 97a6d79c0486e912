// The ADS protocol state per stream (src/adapters/grpc/ads-streams.ts) on made-up resources: what
// is sent when, ACK and NACK, stale nonces, ordering, resumption.
import { describe, expect, it } from 'vitest';
import { DeltaStream, SotwStream, type DeltaResponse, type Encoded, type SotwResponse, type Universe } from '../../src/adapters/grpc/ads-streams';
import { TYPE_URL, type ResourceKind } from '../../src/core/xds/types';

const res = (name: string, version: string): Encoded => ({ name, version, bytes: new TextEncoder().encode(`${name}@${version}`) });
function universe(parts: Partial<Record<ResourceKind, Encoded[]>>): Universe {
  const kinds: ResourceKind[] = ['listener', 'route', 'cluster', 'endpoint', 'secret'];
  return Object.fromEntries(kinds.map((k) => [k, new Map((parts[k] ?? []).map((e) => [e.name, e]))])) as Universe;
}
const kindOf = (url: string) => (Object.keys(TYPE_URL) as ResourceKind[]).find((k) => TYPE_URL[k] === url);

describe('state of the world', () => {
  it('sends on subscribe, not again on ACK; a NACKed version is not re-sent, the next one is', () => {
    const sent: SotwResponse[] = [];
    const st = new SotwStream((r) => sent.push(r));
    const u1 = universe({ route: [res('r', '1')] });
    st.request({ typeUrl: TYPE_URL.route, nonce: '', versionInfo: '', names: ['r'] });
    st.pushAll(u1);
    expect(sent).toHaveLength(1);
    st.request({ typeUrl: TYPE_URL.route, nonce: sent[0].nonce, versionInfo: sent[0].version_info, names: ['r'] });
    st.pushAll(u1);
    expect(sent).toHaveLength(1);
    expect(st.status().route).toEqual({ acked: sent[0].version_info });
    const u2 = universe({ route: [res('r', '2')] });
    st.pushAll(u2);
    expect(sent).toHaveLength(2);
    st.request({ typeUrl: TYPE_URL.route, nonce: sent[1].nonce, versionInfo: sent[0].version_info, names: ['r'], error: 'bad' });
    expect(st.status().route).toEqual({ acked: sent[0].version_info, nacked: { version: sent[1].version_info, error: 'bad' } });
    expect(st.settled()).toBe(false);
    st.pushAll(u2);
    expect(sent).toHaveLength(2);
    st.pushAll(universe({ route: [res('r', '3')] }));
    expect(sent).toHaveLength(3);
  });

  it('ignores an answer to a response older than the last one', () => {
    const sent: SotwResponse[] = [];
    const st = new SotwStream((r) => sent.push(r));
    st.request({ typeUrl: TYPE_URL.cluster, nonce: '', versionInfo: '', names: ['c'] });
    st.pushAll(universe({ cluster: [res('c', '1')] }));
    st.pushAll(universe({ cluster: [res('c', '2')] }));
    expect(st.request({ typeUrl: TYPE_URL.cluster, nonce: sent[0].nonce, versionInfo: '', names: ['c'], error: 'old' })).toBeNull();
    expect(st.status().cluster).toEqual({});
  });

  it('takes the names of a request that answers an older response, without counting it as an answer', () => {
    const sent: SotwResponse[] = [];
    const answers: boolean[] = [];
    const st = new SotwStream((r) => sent.push(r), (_k, acked) => answers.push(acked));
    st.request({ typeUrl: TYPE_URL.route, nonce: '', versionInfo: '', names: ['a'] });
    st.pushAll(universe({ route: [res('a', '1'), res('b', '1')] }));
    st.request({ typeUrl: TYPE_URL.route, nonce: sent[0].nonce, versionInfo: sent[0].version_info, names: ['a'] });
    st.pushAll(universe({ route: [res('a', '2'), res('b', '1')] }));
    // the client, not having seen the second response yet, moves from a to b
    const r = st.request({ typeUrl: TYPE_URL.route, nonce: sent[0].nonce, versionInfo: sent[0].version_info, names: ['b'] });
    expect(r).toEqual({ kind: 'route', namesChanged: true });
    st.pushAll(universe({ route: [res('a', '2'), res('b', '1')] }));
    expect(sent).toHaveLength(3);
    expect(sent[2].resources.map((x) => Buffer.from(x.value).toString())).toEqual(['b@1']);
    expect(answers).toEqual([true]);
  });

  it('no names after some unsubscribes from everything; only a first request without names is a wildcard', () => {
    const sent: SotwResponse[] = [];
    const st = new SotwStream((r) => sent.push(r));
    st.request({ typeUrl: TYPE_URL.listener, nonce: '', versionInfo: '', names: ['l:80'] });
    st.pushAll(universe({ listener: [res('l:80', '1')] }));
    st.request({ typeUrl: TYPE_URL.listener, nonce: sent[0].nonce, versionInfo: sent[0].version_info, names: [] });
    expect(st.listenerNames()).toEqual([]);
    st.pushAll(universe({ listener: [res('l:80', '1')] }));
    expect(sent[1].resources).toEqual([]);
    const fresh = new SotwStream(() => undefined);
    fresh.request({ typeUrl: TYPE_URL.listener, nonce: '', versionInfo: '', names: [] });
    expect(fresh.listenerNames()).toBe('wildcard');
  });

  it('a client back with the version it holds is not sent it again', () => {
    const first: SotwResponse[] = [];
    const u = universe({ listener: [res('l:80', '1')] });
    const a = new SotwStream((r) => first.push(r));
    a.request({ typeUrl: TYPE_URL.listener, nonce: '', versionInfo: '', names: ['l:80'] });
    a.pushAll(u);
    const again: SotwResponse[] = [];
    const b = new SotwStream((r) => again.push(r));
    b.request({ typeUrl: TYPE_URL.listener, nonce: '', versionInfo: first[0].version_info, names: ['l:80'] });
    b.pushAll(u);
    expect(again).toEqual([]);
  });

  it('keeps a cluster the old routes name until the new routes are out', () => {
    const sent: SotwResponse[] = [];
    const st = new SotwStream((r) => sent.push(r));
    st.request({ typeUrl: TYPE_URL.cluster, nonce: '', versionInfo: '', names: [] });
    st.request({ typeUrl: TYPE_URL.route, nonce: '', versionInfo: '', names: ['r'] });
    st.pushAll(universe({ cluster: [res('a', '1')], route: [res('r', '1')] }));
    sent.length = 0;
    st.pushAll(universe({ cluster: [res('b', '1')], route: [res('r', '2')] }));
    expect(sent.map((r) => [kindOf(r.type_url), r.resources.length])).toEqual([['cluster', 2], ['route', 1], ['cluster', 1]]);
  });
});

describe('incremental', () => {
  it('sends what changed, removes what is gone after the routes, and tells a missing name at once', () => {
    const sent: DeltaResponse[] = [];
    const st = new DeltaStream((r) => sent.push(r));
    st.request({ typeUrl: TYPE_URL.cluster, nonce: '', subscribe: ['a', 'b'], unsubscribe: [], initial: {} });
    st.request({ typeUrl: TYPE_URL.route, nonce: '', subscribe: ['r'], unsubscribe: [], initial: {} });
    st.pushAll(universe({ cluster: [res('a', '1')], route: [res('r', '1')] }));
    expect(sent.map((r) => [kindOf(r.type_url), r.resources.map((x) => x.name), r.removed_resources])).toEqual([
      ['cluster', ['a'], ['b']], ['route', ['r'], []],
    ]);
    sent.length = 0;
    st.pushAll(universe({ cluster: [res('a', '1'), res('b', '1')], route: [res('r', '1')] }));
    expect(sent.map((r) => [kindOf(r.type_url), r.resources.map((x) => x.name), r.removed_resources])).toEqual([['cluster', ['b'], []]]);
    sent.length = 0;
    st.pushAll(universe({ cluster: [res('b', '1')], route: [res('r', '2')] }));
    expect(sent.map((r) => [kindOf(r.type_url), r.resources.map((x) => x.name), r.removed_resources])).toEqual([
      ['route', ['r'], []], ['cluster', [], ['a']],
    ]);
  });

  it('does not re-send a refused version; resumes from initial versions', () => {
    const sent: DeltaResponse[] = [];
    const st = new DeltaStream((r) => sent.push(r));
    st.request({ typeUrl: TYPE_URL.listener, nonce: '', subscribe: ['l:80', 'm:80'], unsubscribe: [], initial: { 'l:80': '1' } });
    st.pushAll(universe({ listener: [res('l:80', '1'), res('m:80', '1')] }));
    expect(sent.map((r) => r.resources.map((x) => x.name))).toEqual([['m:80']]);
    st.pushAll(universe({ listener: [res('l:80', '2'), res('m:80', '1')] }));
    st.request({ typeUrl: TYPE_URL.listener, nonce: sent[1].nonce, subscribe: [], unsubscribe: [], initial: {}, error: 'no' });
    expect(st.status().listener?.nacked?.error).toBe('no');
    st.pushAll(universe({ listener: [res('l:80', '2'), res('m:80', '1')] }));
    expect(sent).toHaveLength(2);
    st.pushAll(universe({ listener: [res('l:80', '3'), res('m:80', '1')] }));
    expect(sent).toHaveLength(3);
  });
});
