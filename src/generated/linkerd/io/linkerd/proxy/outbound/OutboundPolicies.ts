// Original file: proto/linkerd/outbound.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { OutboundPolicy as _io_linkerd_proxy_outbound_OutboundPolicy, OutboundPolicy__Output as _io_linkerd_proxy_outbound_OutboundPolicy__Output } from '../../../../io/linkerd/proxy/outbound/OutboundPolicy';
import type { TrafficSpec as _io_linkerd_proxy_outbound_TrafficSpec, TrafficSpec__Output as _io_linkerd_proxy_outbound_TrafficSpec__Output } from '../../../../io/linkerd/proxy/outbound/TrafficSpec';

export interface OutboundPoliciesClient extends grpc.Client {
  Get(argument: _io_linkerd_proxy_outbound_TrafficSpec, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_io_linkerd_proxy_outbound_OutboundPolicy__Output>): grpc.ClientUnaryCall;
  Get(argument: _io_linkerd_proxy_outbound_TrafficSpec, metadata: grpc.Metadata, callback: grpc.requestCallback<_io_linkerd_proxy_outbound_OutboundPolicy__Output>): grpc.ClientUnaryCall;
  Get(argument: _io_linkerd_proxy_outbound_TrafficSpec, options: grpc.CallOptions, callback: grpc.requestCallback<_io_linkerd_proxy_outbound_OutboundPolicy__Output>): grpc.ClientUnaryCall;
  Get(argument: _io_linkerd_proxy_outbound_TrafficSpec, callback: grpc.requestCallback<_io_linkerd_proxy_outbound_OutboundPolicy__Output>): grpc.ClientUnaryCall;
  get(argument: _io_linkerd_proxy_outbound_TrafficSpec, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_io_linkerd_proxy_outbound_OutboundPolicy__Output>): grpc.ClientUnaryCall;
  get(argument: _io_linkerd_proxy_outbound_TrafficSpec, metadata: grpc.Metadata, callback: grpc.requestCallback<_io_linkerd_proxy_outbound_OutboundPolicy__Output>): grpc.ClientUnaryCall;
  get(argument: _io_linkerd_proxy_outbound_TrafficSpec, options: grpc.CallOptions, callback: grpc.requestCallback<_io_linkerd_proxy_outbound_OutboundPolicy__Output>): grpc.ClientUnaryCall;
  get(argument: _io_linkerd_proxy_outbound_TrafficSpec, callback: grpc.requestCallback<_io_linkerd_proxy_outbound_OutboundPolicy__Output>): grpc.ClientUnaryCall;
  
  Watch(argument: _io_linkerd_proxy_outbound_TrafficSpec, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_io_linkerd_proxy_outbound_OutboundPolicy__Output>;
  Watch(argument: _io_linkerd_proxy_outbound_TrafficSpec, options?: grpc.CallOptions): grpc.ClientReadableStream<_io_linkerd_proxy_outbound_OutboundPolicy__Output>;
  watch(argument: _io_linkerd_proxy_outbound_TrafficSpec, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_io_linkerd_proxy_outbound_OutboundPolicy__Output>;
  watch(argument: _io_linkerd_proxy_outbound_TrafficSpec, options?: grpc.CallOptions): grpc.ClientReadableStream<_io_linkerd_proxy_outbound_OutboundPolicy__Output>;
  
}

export interface OutboundPoliciesHandlers extends grpc.UntypedServiceImplementation {
  Get: grpc.handleUnaryCall<_io_linkerd_proxy_outbound_TrafficSpec__Output, _io_linkerd_proxy_outbound_OutboundPolicy>;
  
  Watch: grpc.handleServerStreamingCall<_io_linkerd_proxy_outbound_TrafficSpec__Output, _io_linkerd_proxy_outbound_OutboundPolicy>;
  
}

export interface OutboundPoliciesDefinition extends grpc.ServiceDefinition {
  Get: MethodDefinition<_io_linkerd_proxy_outbound_TrafficSpec, _io_linkerd_proxy_outbound_OutboundPolicy, _io_linkerd_proxy_outbound_TrafficSpec__Output, _io_linkerd_proxy_outbound_OutboundPolicy__Output>
  Watch: MethodDefinition<_io_linkerd_proxy_outbound_TrafficSpec, _io_linkerd_proxy_outbound_OutboundPolicy, _io_linkerd_proxy_outbound_TrafficSpec__Output, _io_linkerd_proxy_outbound_OutboundPolicy__Output>
}
