// deploy/envoy/bootstrap.yaml, the bootstrap a user runs Envoy with elsewhere (no Envoy binary can
// be installed here): read as Envoy reads it (YAML in the protos' JSON mapping), its placeholders
// filled, decoded into the real envoy.config.bootstrap.v3.Bootstrap from the protos that ship in
// @grpc/grpc-js-xds, and checked against the protoc-gen-validate rules they declare. It must ask
// for delta ADS and send the token as call metadata and the Gateway as node.cluster.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { parse } from 'yaml';
import { decodeMessage, encodeMessage, loadProtoFiles, messageType } from '../../src/adapters/grpc/xds-protos';
import { pgvViolations } from '../../src/adapters/grpc/pgv';

const BOOTSTRAP = 'type.googleapis.com/envoy.config.bootstrap.v3.Bootstrap';
const file = join(dirname(fileURLToPath(import.meta.url)), '../../deploy/envoy/bootstrap.yaml');

/** The protos' JSON mapping as our plain form: a Duration written "5s" as {seconds, nanos}. */
function fromJsonMapping(type: protobuf.Type, v: any): any {
  if (type.fullName === '.google.protobuf.Duration' && typeof v === 'string') {
    const m = /^(\d+)(?:\.(\d{1,9}))?s$/.exec(v);
    if (!m) throw new Error(`not a duration: ${v}`);
    return { seconds: Number(m[1]), ...(m[2] ? { nanos: Number(m[2].padEnd(9, '0')) } : {}) };
  }
  if (type.fullName === '.google.protobuf.Any') {
    const { '@type': url, ...rest } = v;
    return { '@type': url, ...fromJsonMapping(messageType(url), rest) };
  }
  const out: any = {};
  for (const [k, x] of Object.entries(v ?? {})) {
    const f = type.fields[k];
    const rt = f?.resolve().resolvedType;
    if (!(rt instanceof protobuf.Type)) out[k] = x;
    else if (f.map) out[k] = Object.fromEntries(Object.entries(x as object).map(([mk, mv]) => [mk, fromJsonMapping(rt, mv)]));
    else if (f.repeated) out[k] = (x as any[]).map((i) => fromJsonMapping(rt, i));
    else out[k] = fromJsonMapping(rt, x);
  }
  return out;
}

const VALUES: Record<string, string> = {
  ENVOY_ID: 'edge-envoy-1', GATEWAY_NAMESPACE: 'edge', GATEWAY_NAME: 'gw', SWITCHYARD_XDS_HOST: 'switchyard.example.internal',
  SWITCHYARD_XDS_PORT: '18000', SWITCHYARD_XDS_CA: '/etc/switchyard/ca.crt', SWITCHYARD_TOKEN: 'sy_example',
};

function bootstrap(values: Record<string, string>) {
  loadProtoFiles(['envoy/config/bootstrap/v3/bootstrap.proto']);
  const text = readFileSync(file, 'utf8').replace(/\$\{([A-Z_]+)\}/g, (_, k: string) => {
    if (!(k in values)) throw new Error(`placeholder ${k} has no value`);
    return values[k];
  });
  const plain = fromJsonMapping(messageType(BOOTSTRAP), parse(text));
  const bytes = encodeMessage(BOOTSTRAP, plain);
  return { bytes, decoded: decodeMessage(BOOTSTRAP, bytes) as any };
}

describe('the Envoy bootstrap', () => {
  it('is a valid Bootstrap that asks for delta ADS with the token as call metadata', () => {
    const { bytes, decoded } = bootstrap(VALUES);
    expect(pgvViolations(BOOTSTRAP, bytes)).toEqual([]);
    expect(decoded.node).toMatchObject({ id: 'edge-envoy-1', cluster: 'edge/gw' });
    const ads = decoded.dynamic_resources.ads_config;
    expect(ads.api_type).toBe('DELTA_GRPC');
    expect(ads.transport_api_version).toBe('V3');
    expect(ads.grpc_services[0].initial_metadata).toEqual([{ key: 'authorization', value: 'Bearer sy_example' }]);
    const xds = decoded.static_resources.clusters.find((c: any) => c.name === ads.grpc_services[0].envoy_grpc.cluster_name);
    expect(xds.load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address).toMatchObject({ address: 'switchyard.example.internal', port_value: 18000 });
    expect(xds.connect_timeout).toEqual({ seconds: '5' });
    // TLS to the xDS server: a token must not cross a network in the clear
    expect(xds.transport_socket.typed_config.type_url).toContain('UpstreamTlsContext');
    expect(decoded.dynamic_resources.cds_config.ads).toEqual({});
    expect(decoded.dynamic_resources.lds_config.ads).toEqual({});
  });
  it('the checks catch what Envoy would refuse', () => {
    // an xDS port out of range
    const { bytes } = bootstrap({ ...VALUES, SWITCHYARD_XDS_PORT: '70000' });
    expect(pgvViolations(BOOTSTRAP, bytes).join('\n')).toMatch(/port_value: 70000 breaks lte 65535/);
  });
});
