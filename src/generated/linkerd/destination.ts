import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { DestinationClient as _io_linkerd_proxy_destination_DestinationClient, DestinationDefinition as _io_linkerd_proxy_destination_DestinationDefinition } from './io/linkerd/proxy/destination/Destination';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  google: {
    protobuf: {
      Duration: MessageTypeDefinition
    }
  }
  io: {
    linkerd: {
      proxy: {
        destination: {
          AddrSet: MessageTypeDefinition
          AuthorityOverride: MessageTypeDefinition
          Destination: SubtypeConstructor<typeof grpc.Client, _io_linkerd_proxy_destination_DestinationClient> & { service: _io_linkerd_proxy_destination_DestinationDefinition }
          DestinationProfile: MessageTypeDefinition
          GetDestination: MessageTypeDefinition
          Http2ClientParams: MessageTypeDefinition
          HttpStatusRange: MessageTypeDefinition
          NoEndpoints: MessageTypeDefinition
          PathMatch: MessageTypeDefinition
          ProtocolHint: MessageTypeDefinition
          RequestMatch: MessageTypeDefinition
          ResponseClass: MessageTypeDefinition
          ResponseMatch: MessageTypeDefinition
          RetryBudget: MessageTypeDefinition
          Route: MessageTypeDefinition
          TlsIdentity: MessageTypeDefinition
          Update: MessageTypeDefinition
          WeightedAddr: MessageTypeDefinition
          WeightedAddrSet: MessageTypeDefinition
          WeightedDst: MessageTypeDefinition
        }
        http_types: {
          Headers: MessageTypeDefinition
          HttpMethod: MessageTypeDefinition
          Scheme: MessageTypeDefinition
        }
        meta: {
          Metadata: MessageTypeDefinition
          Resource: MessageTypeDefinition
        }
        net: {
          IPAddress: MessageTypeDefinition
          IPNetwork: MessageTypeDefinition
          IPv6: MessageTypeDefinition
          TcpAddress: MessageTypeDefinition
        }
      }
    }
  }
}

