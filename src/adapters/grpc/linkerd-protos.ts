// Linkerd's Destination and OutboundPolicies services as grpc-js service definitions, from the JSON
// descriptor `npm run gen` makes of our protos (proto/linkerd). Messages are plain objects with the
// protos' field names; 64-bit numbers as decimal strings; a oneof names its set field.
import type { ServiceDefinition } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import descriptor from '../../generated/linkerd/descriptor.json';

export const LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true } as const;

let loaded: protoLoader.PackageDefinition | undefined;

export function linkerdPackage(): protoLoader.PackageDefinition {
  return (loaded ??= protoLoader.fromJSON(descriptor as never, LOADER_OPTIONS));
}

export const DESTINATION_SERVICE = 'io.linkerd.proxy.destination.Destination';
export const OUTBOUND_SERVICE = 'io.linkerd.proxy.outbound.OutboundPolicies';

export function serviceDefinition(name: typeof DESTINATION_SERVICE | typeof OUTBOUND_SERVICE): ServiceDefinition {
  return linkerdPackage()[name] as unknown as ServiceDefinition;
}
