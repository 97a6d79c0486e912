// Original file: proto/linkerd/destination.proto

import type { TcpAddress as _io_linkerd_proxy_net_TcpAddress, TcpAddress__Output as _io_linkerd_proxy_net_TcpAddress__Output } from '../../../../io/linkerd/proxy/net/TcpAddress';

export interface AddrSet {
  'addrs'?: (_io_linkerd_proxy_net_TcpAddress)[];
}

export interface AddrSet__Output {
  'addrs': (_io_linkerd_proxy_net_TcpAddress__Output)[];
}
