// The Envoy v3 protos, as they ship inside @grpc/grpc-js-xds, loaded once with protobufjs: what the
// ADS server decodes requests and encodes resources with. Found through node's resolution from this
// module, so the same lookup works from the sources and from dist/ (packages are not bundled).
import protobuf from 'protobufjs';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The proto files whose messages we send or read, with everything they import. */
const FILES = [
  'envoy/service/discovery/v3/ads.proto',
  'envoy/config/listener/v3/listener.proto',
  'envoy/config/route/v3/route.proto',
  'envoy/config/cluster/v3/cluster.proto',
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
  'envoy/extensions/filters/http/fault/v3/fault.proto',
  'envoy/extensions/transport_sockets/tls/v3/secret.proto',
  // what an Envoy node's listeners, routes and clusters carry (src/core/xds/envoy)
  'envoy/extensions/transport_sockets/tls/v3/tls.proto',
  'envoy/extensions/filters/http/cors/v3/cors.proto',
  'envoy/extensions/filters/network/tcp_proxy/v3/tcp_proxy.proto',
  'envoy/extensions/filters/udp/udp_proxy/v3/udp_proxy.proto',
  'envoy/extensions/filters/udp/udp_proxy/v3/route.proto',
  'envoy/extensions/filters/listener/tls_inspector/v3/tls_inspector.proto',
  'envoy/extensions/upstreams/http/v3/http_protocol_options.proto',
  'envoy/extensions/filters/http/ext_authz/v3/ext_authz.proto',
  'envoy/extensions/filters/http/stateful_session/v3/stateful_session.proto',
  'envoy/extensions/http/stateful_session/cookie/v3/cookie.proto',
];

export function protoDirs(): string[] {
  const deps = join(dirname(require.resolve('@grpc/grpc-js-xds/package.json')), 'deps');
  return ['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((d) => join(deps, d));
}

let loaded: protobuf.Root | undefined;

/** The root of every loaded message type (field names as in the protos: keepCase). */
export function xdsRoot(): protobuf.Root {
  if (loaded) return loaded;
  // validate.proto's options extend descriptor.proto, which protobufjs ships as JSON (proto-loader does the same)
  protobuf.common('descriptor', require('protobufjs/google/protobuf/descriptor.json').nested.google.nested.protobuf.nested);
  const dirs = protoDirs();
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    for (const d of dirs) {
      const p = join(d, target);
      if (existsSync(p)) return p;
    }
    return target;
  };
  root.loadSync(FILES, { keepCase: true });
  root.resolveAll();
  return (loaded = root);
}

/** More of the vendored protos in the same root (e.g. the bootstrap, which the server itself never sends). */
export function loadProtoFiles(files: string[]): protobuf.Root {
  const root = xdsRoot();
  root.loadSync(files, { keepCase: true });
  root.resolveAll();
  return root;
}

export const typeNameOf = (typeUrl: string) => typeUrl.slice(typeUrl.lastIndexOf('/') + 1);

export function messageType(typeUrl: string): protobuf.Type {
  return xdsRoot().lookupType(typeNameOf(typeUrl));
}

/**
 * A message in our plain form (see src/core/xds/types.ts) as protobufjs takes it: every nested Any
 * written as {'@type', ...fields} encoded into {type_url, value}. A field the type does not have is
 * an error (protobufjs would drop it silently).
 */
function prepare(type: protobuf.Type, obj: Record<string, unknown>): Record<string, unknown> {
  if (type.fullName === '.google.protobuf.Any' && typeof obj['@type'] === 'string') {
    const { '@type': url, ...fields } = obj as { '@type': string };
    const inner = messageType(url);
    return { type_url: url, value: inner.encode(inner.fromObject(prepare(inner, fields))).finish() };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const f = type.fields[k];
    if (!f) throw new Error(`${type.fullName.slice(1)} has no field "${k}"`);
    const rt = f.resolve().resolvedType;
    if (rt instanceof protobuf.Type && v !== null && v !== undefined) {
      if (f.map) out[k] = Object.fromEntries(Object.entries(v as Record<string, Record<string, unknown>>).map(([mk, mv]) => [mk, prepare(rt, mv)]));
      else if (f.repeated) out[k] = (v as Record<string, unknown>[]).map((x) => prepare(rt, x));
      else out[k] = prepare(rt, v as Record<string, unknown>);
    } else out[k] = v;
  }
  return out;
}

/** A resource of type `typeUrl`, encoded. */
export function encodeMessage(typeUrl: string, obj: object): Uint8Array {
  const type = messageType(typeUrl);
  return type.encode(type.fromObject(prepare(type, obj as Record<string, unknown>))).finish();
}

/** Decodes a message to a plain object (enums as names, 64-bit numbers as strings, defaults left out). */
export function decodeMessage(typeUrl: string, bytes: Uint8Array): Record<string, unknown> {
  const type = messageType(typeUrl);
  return type.toObject(type.decode(bytes), { enums: String, longs: String, bytes: String });
}
