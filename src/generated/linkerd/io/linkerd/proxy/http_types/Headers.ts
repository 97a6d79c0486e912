// Original file: proto/linkerd/http_types.proto


export interface _io_linkerd_proxy_http_types_Headers_Header {
  'name'?: (string);
  'value'?: (Buffer | Uint8Array | string);
}

export interface _io_linkerd_proxy_http_types_Headers_Header__Output {
  'name': (string);
  'value': (Buffer);
}

export interface Headers {
  'headers'?: (_io_linkerd_proxy_http_types_Headers_Header)[];
}

export interface Headers__Output {
  'headers': (_io_linkerd_proxy_http_types_Headers_Header__Output)[];
}
