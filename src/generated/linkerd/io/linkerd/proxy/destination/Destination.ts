// Original file: proto/linkerd/destination.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DestinationProfile as _io_linkerd_proxy_destination_DestinationProfile, DestinationProfile__Output as _io_linkerd_proxy_destination_DestinationProfile__Output } from '../../../../io/linkerd/proxy/destination/DestinationProfile';
import type { GetDestination as _io_linkerd_proxy_destination_GetDestination, GetDestination__Output as _io_linkerd_proxy_destination_GetDestination__Output } from '../../../../io/linkerd/proxy/destination/GetDestination';
import type { Update as _io_linkerd_proxy_destination_Update, Update__Output as _io_linkerd_proxy_destination_Update__Output } from '../../../../io/linkerd/proxy/destination/Update';

export interface DestinationClient extends grpc.Client {
  Get(argument: _io_linkerd_proxy_destination_GetDestination, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_io_linkerd_proxy_destination_Update__Output>;
  Get(argument: _io_linkerd_proxy_destination_GetDestination, options?: grpc.CallOptions): grpc.ClientReadableStream<_io_linkerd_proxy_destination_Update__Output>;
  get(argument: _io_linkerd_proxy_destination_GetDestination, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_io_linkerd_proxy_destination_Update__Output>;
  get(argument: _io_linkerd_proxy_destination_GetDestination, options?: grpc.CallOptions): grpc.ClientReadableStream<_io_linkerd_proxy_destination_Update__Output>;
  
  GetProfile(argument: _io_linkerd_proxy_destination_GetDestination, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_io_linkerd_proxy_destination_DestinationProfile__Output>;
  GetProfile(argument: _io_linkerd_proxy_destination_GetDestination, options?: grpc.CallOptions): grpc.ClientReadableStream<_io_linkerd_proxy_destination_DestinationProfile__Output>;
  getProfile(argument: _io_linkerd_proxy_destination_GetDestination, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_io_linkerd_proxy_destination_DestinationProfile__Output>;
  getProfile(argument: _io_linkerd_proxy_destination_GetDestination, options?: grpc.CallOptions): grpc.ClientReadableStream<_io_linkerd_proxy_destination_DestinationProfile__Output>;
  
}

export interface DestinationHandlers extends grpc.UntypedServiceImplementation {
  Get: grpc.handleServerStreamingCall<_io_linkerd_proxy_destination_GetDestination__Output, _io_linkerd_proxy_destination_Update>;
  
  GetProfile: grpc.handleServerStreamingCall<_io_linkerd_proxy_destination_GetDestination__Output, _io_linkerd_proxy_destination_DestinationProfile>;
  
}

export interface DestinationDefinition extends grpc.ServiceDefinition {
  Get: MethodDefinition<_io_linkerd_proxy_destination_GetDestination, _io_linkerd_proxy_destination_Update, _io_linkerd_proxy_destination_GetDestination__Output, _io_linkerd_proxy_destination_Update__Output>
  GetProfile: MethodDefinition<_io_linkerd_proxy_destination_GetDestination, _io_linkerd_proxy_destination_DestinationProfile, _io_linkerd_proxy_destination_GetDestination__Output, _io_linkerd_proxy_destination_DestinationProfile__Output>
}
