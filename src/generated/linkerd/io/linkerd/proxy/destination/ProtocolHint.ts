// Original file: proto/linkerd/destination.proto


export interface _io_linkerd_proxy_destination_ProtocolHint_H2 {
}

export interface _io_linkerd_proxy_destination_ProtocolHint_H2__Output {
}

export interface _io_linkerd_proxy_destination_ProtocolHint_Opaque {
}

export interface _io_linkerd_proxy_destination_ProtocolHint_Opaque__Output {
}

export interface _io_linkerd_proxy_destination_ProtocolHint_OpaqueTransport {
  'inbound_port'?: (number);
}

export interface _io_linkerd_proxy_destination_ProtocolHint_OpaqueTransport__Output {
  'inbound_port': (number);
}

export interface ProtocolHint {
  'h2'?: (_io_linkerd_proxy_destination_ProtocolHint_H2 | null);
  'opaque_transport'?: (_io_linkerd_proxy_destination_ProtocolHint_OpaqueTransport | null);
  'opaque'?: (_io_linkerd_proxy_destination_ProtocolHint_Opaque | null);
  'protocol'?: "h2"|"opaque";
}

export interface ProtocolHint__Output {
  'h2'?: (_io_linkerd_proxy_destination_ProtocolHint_H2__Output | null);
  'opaque_transport': (_io_linkerd_proxy_destination_ProtocolHint_OpaqueTransport__Output | null);
  'opaque'?: (_io_linkerd_proxy_destination_ProtocolHint_Opaque__Output | null);
  'protocol'?: "h2"|"opaque";
}
