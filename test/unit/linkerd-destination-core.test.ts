// The pure parts of the Linkerd destination API: what a path names, IPs as net.IPAddress, the
// updates from one endpoint set to the next, and a Service's view kept by the log's events.
import { describe, expect, it } from 'vitest';
import { BadDestination, parseDestination } from '../../src/core/linkerd/destination-path';
import { canonicalIP, ipMessage, ipText } from '../../src/core/linkerd/ip';
import { firstUpdates, nextUpdates, serviceEndpoints, type EndpointsState } from '../../src/core/linkerd/endpoints';
import { applyToView, newView, slicesOf } from '../../src/core/linkerd/service-view';

const svc = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'apps' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }], ...extra } }) as never;
const slice = (name: string, service: string, ips: string[]) => ({
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name, namespace: 'apps', labels: { 'kubernetes.io/service-name': service } },
  addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }], endpoints: ips.map((ip) => ({ addresses: [ip] })),
}) as never;

describe('destination paths', () => {
  it('reads a Service port by name and by cluster IP', () => {
    expect(parseDestination('web.apps.svc.cluster.local:80', 'cluster.local')).toEqual({ by: 'name', service: 'web', namespace: 'apps', port: 80 });
    expect(parseDestination('WEB.apps.svc.cluster.local.:80', 'cluster.local')).toEqual({ by: 'name', service: 'web', namespace: 'apps', port: 80 });
    expect(parseDestination('web.apps.svc.corp.example:8080', 'corp.example')).toMatchObject({ by: 'name', port: 8080 });
    expect(parseDestination('10.96.0.10:443', 'cluster.local')).toEqual({ by: 'address', ip: '10.96.0.10', port: 443 });
    expect(parseDestination('[fd00::a]:80', 'cluster.local')).toEqual({ by: 'address', ip: 'fd00::a', port: 80 });
  });
  it('names what is wrong with anything else', () => {
    for (const [p, words] of [['', 'empty'], ['web.apps.svc.cluster.local', 'port is missing'], ['web.apps.svc.cluster.local:99999', 'port must'],
      ['example.com:80', 'not a Service of this cluster'], ['apps.svc.cluster.local:80', 'want exactly'], ['[zz::1]:80', 'IPv6']] as const) {
      expect(() => parseDestination(p, 'cluster.local'), p).toThrow(BadDestination);
      expect(() => parseDestination(p, 'cluster.local'), p).toThrow(words);
    }
  });
});

describe('IP addresses', () => {
  it('carries IPv4 as one number and IPv6 as two halves, both ways', () => {
    expect(ipMessage('10.1.0.1')).toEqual({ ipv4: 167837697 });
    expect(ipMessage('255.255.255.255')).toEqual({ ipv4: 4294967295 });
    expect(ipText({ ipv4: 167837697 })).toBe('10.1.0.1');
    const v6 = ipMessage('fd00::1:2')!;
    expect(v6).toEqual({ ipv6: { first: String(0xfd00n << 48n), last: String((1n << 16n) | 2n) } });
    expect(ipText(v6 as never)).toBe('fd00:0:0:0:0:0:1:2');
    expect(canonicalIP('::ffff:10.0.0.1')).toBe('0:0:0:0:0:ffff:a00:1');
    expect(ipMessage('10.0.0.256')).toBeNull();
    expect(ipMessage('1::2::3')).toBeNull();
  });
});

describe('updates', () => {
  const labels = { namespace: 'apps', service: 'web' };
  const state = (ips: string[], exists = true): EndpointsState => serviceEndpoints(exists ? svc('web') : null, 80, [slice('s', 'web', ips)]);
  it('starts with every endpoint, or no_endpoints telling whether the Service exists', () => {
    expect(firstUpdates(state([], false), labels)).toEqual([{ no_endpoints: { exists: false } }]);
    expect(firstUpdates(state([]), labels)).toEqual([{ no_endpoints: { exists: true } }]);
    expect(firstUpdates(state(['10.0.0.1']), labels)).toMatchObject([{ add: { addrs: [{ addr: { ip: { ipv4: 167772161 }, port: 8080 }, weight: 10000 }], metric_labels: labels } }]);
  });
  it('sends the added before the removed, and no_endpoints when the last one goes', () => {
    expect(nextUpdates(state(['10.0.0.1']), state(['10.0.0.2']), labels).map((u) => Object.keys(u)[0])).toEqual(['add', 'remove']);
    expect(nextUpdates(state(['10.0.0.1']), state([]), labels).map((u) => Object.keys(u)[0])).toEqual(['remove', 'no_endpoints']);
    expect(nextUpdates(state(['10.0.0.1']), state(['10.0.0.1']), labels)).toEqual([]);
    expect(nextUpdates(state([]), state([], false), labels)).toEqual([{ no_endpoints: { exists: false } }]);
  });
  it('leaves out FQDN slices, and gives an ExternalName Service no endpoints and exists:false', () => {
    expect(serviceEndpoints(svc('web'), 80, [{ ...(slice('s', 'web', ['a.example']) as object), addressType: 'FQDN' } as never]).endpoints).toEqual([]);
    expect(serviceEndpoints(svc('web', { type: 'ExternalName', externalName: 'a.example' }), 80, [slice('s', 'web', ['10.0.0.1'])])).toEqual({ exists: false, endpoints: [] });
  });
});

describe('a Service view kept by events', () => {
  const ev = (kind: string, name: string, version: number, object: unknown, deleted = false) => ({ kind, namespace: 'apps', name, version, deleted, object: object as never });
  it('takes newer events, ignores older ones, and follows a slice that changes Service', () => {
    const v = newView('apps', 'web');
    expect(applyToView(v, ev('EndpointSlice', 's1', 2, slice('s1', 'web', ['10.0.0.2'])))).toBe(true);
    expect(applyToView(v, ev('EndpointSlice', 's1', 1, slice('s1', 'web', ['10.0.0.1'])))).toBe(false);
    expect(slicesOf(v).map((s) => s.endpoints![0].addresses[0])).toEqual(['10.0.0.2']);
    expect(applyToView(v, ev('EndpointSlice', 's1', 3, slice('s1', 'other', ['10.0.0.3'])))).toBe(true);
    expect(slicesOf(v)).toEqual([]);
    expect(applyToView(v, ev('EndpointSlice', 'x', 1, slice('x', 'other', ['10.0.0.9'])))).toBe(false);
    expect(applyToView(v, ev('Service', 'web', 1, svc('web')))).toBe(true);
    expect(applyToView(v, ev('Service', 'web', 2, svc('web'), true))).toBe(true);
    expect(v.service.object).toBeNull();
    expect(applyToView(v, ev('Service', 'web', 1, svc('web')))).toBe(false);
  });
});
