// envoy.service.discovery.v3.AggregatedDiscoveryService as a grpc-js service definition, its
// messages read and written with the loaded Envoy protos (src/generated/xds types the requests).
import type { ServiceDefinition } from '@grpc/grpc-js';
import type { DiscoveryRequest__Output } from '../../generated/xds/envoy/service/discovery/v3/DiscoveryRequest';
import type { DeltaDiscoveryRequest__Output } from '../../generated/xds/envoy/service/discovery/v3/DeltaDiscoveryRequest';
import type { DeltaResponse, SotwResponse } from './ads-streams';
import { xdsRoot } from './xds-protos';
import { encodeDeltaResponse, encodeSotwResponse } from './ads-encode';

const SERVICE = '/envoy.service.discovery.v3.AggregatedDiscoveryService';
const READ = { longs: String, enums: String, defaults: true, arrays: true, objects: true, oneofs: true } as const;

function codec<Req, Res>(requestType: string, responseType: string, encode: (m: Res) => Buffer) {
  const req = xdsRoot().lookupType(requestType);
  const res = xdsRoot().lookupType(responseType);
  return {
    requestStream: true as const,
    responseStream: true as const,
    requestSerialize: (m: Req) => Buffer.from(req.encode(req.fromObject(m as object)).finish()),
    requestDeserialize: (b: Buffer) => req.toObject(req.decode(b), READ) as Req,
    // the server's side: written field by field (ads-encode); a client's side decodes them as any message
    responseSerialize: encode,
    responseDeserialize: (b: Buffer) => res.toObject(res.decode(b), READ) as Res,
  };
}

export function adsService(): ServiceDefinition {
  return {
    StreamAggregatedResources: { path: `${SERVICE}/StreamAggregatedResources`, ...codec<DiscoveryRequest__Output, SotwResponse>('envoy.service.discovery.v3.DiscoveryRequest', 'envoy.service.discovery.v3.DiscoveryResponse', encodeSotwResponse) },
    DeltaAggregatedResources: { path: `${SERVICE}/DeltaAggregatedResources`, ...codec<DeltaDiscoveryRequest__Output, DeltaResponse>('envoy.service.discovery.v3.DeltaDiscoveryRequest', 'envoy.service.discovery.v3.DeltaDiscoveryResponse', encodeDeltaResponse) },
  } as ServiceDefinition;
}
