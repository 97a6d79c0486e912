// The ADS responses the server writes field by field decode as the same messages as protobufjs's
// own encoding of them: what a client reads is unchanged, resources carried once or many times.
import { describe, expect, it } from 'vitest';
import { encodeDeltaResponse, encodeSotwResponse } from '../../src/adapters/grpc/ads-encode';
import { xdsRoot, encodeMessage } from '../../src/adapters/grpc/xds-protos';
import { TYPE_URL } from '../../src/core/xds/types';

const READ = { longs: String, enums: String, defaults: true, arrays: true, objects: true, oneofs: true } as const;
const route = encodeMessage(TYPE_URL.route, { name: 'echo.example.com:8080', virtual_hosts: [{ name: 'v', domains: ['*'], routes: [{ match: { prefix: '/' }, route: { cluster: 'apps/echo:50051' } }] }] });
const cluster = encodeMessage(TYPE_URL.cluster, { name: 'apps/echo:50051', type: 'EDS' });

function both(type: string, m: object, fast: Buffer) {
  const t = xdsRoot().lookupType(type);
  const reflective = t.encode(t.fromObject(m)).finish();
  return [t.toObject(t.decode(fast), READ), t.toObject(t.decode(reflective), READ)];
}

describe('ADS responses written field by field', () => {
  it('a delta response: resources, removals, nonce, type, the same entry encoded again from its cache', () => {
    const m = {
      system_version_info: '', type_url: TYPE_URL.route, nonce: '1a', removed_resources: ['gone.example.com:8080', 'old:1'],
      resources: [{ name: 'echo.example.com:8080', version: 'v1', resource: { type_url: TYPE_URL.route, value: route } }],
    };
    const [fast, reflective] = both('envoy.service.discovery.v3.DeltaDiscoveryResponse', m, encodeDeltaResponse(m));
    expect(fast).toEqual(reflective);
    expect((fast as any).resources[0]).toMatchObject({ name: 'echo.example.com:8080', version: 'v1' });
    const again = { ...m, nonce: '1b', removed_resources: [] };
    const [fast2, reflective2] = both('envoy.service.discovery.v3.DeltaDiscoveryResponse', again, encodeDeltaResponse(again));
    expect(fast2).toEqual(reflective2);
  });

  it('a state-of-the-world response: version, Any resources, nonce, type', () => {
    const m = { version_info: 'abc', type_url: TYPE_URL.cluster, nonce: '7', resources: [{ type_url: TYPE_URL.cluster, value: cluster }, { type_url: TYPE_URL.route, value: route }] };
    const [fast, reflective] = both('envoy.service.discovery.v3.DiscoveryResponse', m, encodeSotwResponse(m));
    expect(fast).toEqual(reflective);
    expect((fast as any).resources).toHaveLength(2);
  });
});
