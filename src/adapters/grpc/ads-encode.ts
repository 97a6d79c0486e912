// The ADS responses as bytes, written field by field rather than through protobufjs's reflection:
// a change reaching ten thousand streams is tens of thousands of responses that differ only in
// their nonces, and each resource entry in them (name, version, the encoded resource in an Any) is
// encoded once per resource version and copied into every response that carries it. Field numbers
// are envoy.service.discovery.v3's (discovery.proto); test/unit/ads-encode.test.ts checks the bytes
// against the reflective encoding.
import protobuf from 'protobufjs';
import type { DeltaResponse, SotwResponse } from './ads-streams';

const { Writer } = protobuf;
// (field number << 3) | wire type 2 (length-delimited)
const tag = (field: number) => (field << 3) | 2;

/** the encoded entries, by the resource's bytes (one Encoded per resource version: the same bytes object in every response) */
const deltaEntries = new WeakMap<Uint8Array, Uint8Array>();
const anys = new WeakMap<Uint8Array, Uint8Array>();

function any(w: protobuf.Writer, typeUrl: string, value: Uint8Array): protobuf.Writer {
  return w.uint32(tag(1)).string(typeUrl).uint32(tag(2)).bytes(value);
}

/** envoy.service.discovery.v3.Resource {version 1, resource 2 (Any), name 3} */
function deltaEntry(r: DeltaResponse['resources'][number]): Uint8Array {
  let b = deltaEntries.get(r.resource.value);
  if (!b) {
    const w = Writer.create().uint32(tag(1)).string(r.version).uint32(tag(2)).fork();
    any(w, r.resource.type_url, r.resource.value).ldelim();
    b = w.uint32(tag(3)).string(r.name).finish();
    deltaEntries.set(r.resource.value, b);
  }
  return b;
}

function anyOf(r: SotwResponse['resources'][number]): Uint8Array {
  let b = anys.get(r.value);
  if (!b) anys.set(r.value, (b = any(Writer.create(), r.type_url, r.value).finish()));
  return b;
}

/** DeltaDiscoveryResponse {system_version_info 1, resources 2, type_url 4, nonce 5, removed_resources 6} */
export function encodeDeltaResponse(m: DeltaResponse): Buffer {
  const w = Writer.create();
  if (m.system_version_info) w.uint32(tag(1)).string(m.system_version_info);
  for (const r of m.resources) w.uint32(tag(2)).bytes(deltaEntry(r));
  if (m.type_url) w.uint32(tag(4)).string(m.type_url);
  if (m.nonce) w.uint32(tag(5)).string(m.nonce);
  for (const n of m.removed_resources) w.uint32(tag(6)).string(n);
  const out = w.finish();
  return Buffer.isBuffer(out) ? out : Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** DiscoveryResponse {version_info 1, resources 2 (Any), type_url 4, nonce 5} */
export function encodeSotwResponse(m: SotwResponse): Buffer {
  const w = Writer.create();
  if (m.version_info) w.uint32(tag(1)).string(m.version_info);
  for (const r of m.resources) w.uint32(tag(2)).bytes(anyOf(r));
  if (m.type_url) w.uint32(tag(4)).string(m.type_url);
  if (m.nonce) w.uint32(tag(5)).string(m.nonce);
  const out = w.finish();
  return Buffer.isBuffer(out) ? out : Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
