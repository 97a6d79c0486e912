// Original file: proto/linkerd/outbound.proto

import type { TcpAddress as _io_linkerd_proxy_net_TcpAddress, TcpAddress__Output as _io_linkerd_proxy_net_TcpAddress__Output } from '../../../../io/linkerd/proxy/net/TcpAddress';

export interface TrafficSpec {
  'source_workload'?: (string);
  'addr'?: (_io_linkerd_proxy_net_TcpAddress | null);
  'authority'?: (string);
  'target'?: "addr"|"authority";
}

export interface TrafficSpec__Output {
  'source_workload': (string);
  'addr'?: (_io_linkerd_proxy_net_TcpAddress__Output | null);
  'authority'?: (string);
  'target'?: "addr"|"authority";
}
