import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { DestinationClient as _io_linkerd_proxy_destination_DestinationClient, DestinationDefinition as _io_linkerd_proxy_destination_DestinationDefinition } from './io/linkerd/proxy/destination/Destination';
import type { OutboundPoliciesClient as _io_linkerd_proxy_outbound_OutboundPoliciesClient, OutboundPoliciesDefinition as _io_linkerd_proxy_outbound_OutboundPoliciesDefinition } from './io/linkerd/proxy/outbound/OutboundPolicies';

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
        grpc_route: {
          GrpcFailureInjector: MessageTypeDefinition
          GrpcRouteMatch: MessageTypeDefinition
          GrpcRpcMatch: MessageTypeDefinition
        }
        http_route: {
          HeaderMatch: MessageTypeDefinition
          HostMatch: MessageTypeDefinition
          HttpFailureInjector: MessageTypeDefinition
          HttpRouteMatch: MessageTypeDefinition
          PathMatch: MessageTypeDefinition
          PathModifier: MessageTypeDefinition
          QueryParamMatch: MessageTypeDefinition
          Ratio: MessageTypeDefinition
          RequestHeaderModifier: MessageTypeDefinition
          RequestRedirect: MessageTypeDefinition
          ResponseHeaderModifier: MessageTypeDefinition
          Timeouts: MessageTypeDefinition
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
        opaque_route: {
          Forbidden: MessageTypeDefinition
          Invalid: MessageTypeDefinition
        }
        outbound: {
          Backend: MessageTypeDefinition
          ExponentialBackoff: MessageTypeDefinition
          FailureAccrual: MessageTypeDefinition
          GrpcRoute: MessageTypeDefinition
          HttpRoute: MessageTypeDefinition
          OpaqueRoute: MessageTypeDefinition
          OutboundPolicies: SubtypeConstructor<typeof grpc.Client, _io_linkerd_proxy_outbound_OutboundPoliciesClient> & { service: _io_linkerd_proxy_outbound_OutboundPoliciesDefinition }
          OutboundPolicy: MessageTypeDefinition
          ProxyProtocol: MessageTypeDefinition
          Queue: MessageTypeDefinition
          TlsRoute: MessageTypeDefinition
          TrafficSpec: MessageTypeDefinition
        }
        tls_route: {
          SniMatch: MessageTypeDefinition
        }
      }
    }
  }
}

