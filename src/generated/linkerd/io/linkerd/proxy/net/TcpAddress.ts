// Original file: proto/linkerd/net.proto

import type { IPAddress as _io_linkerd_proxy_net_IPAddress, IPAddress__Output as _io_linkerd_proxy_net_IPAddress__Output } from '../../../../io/linkerd/proxy/net/IPAddress';

export interface TcpAddress {
  'ip'?: (_io_linkerd_proxy_net_IPAddress | null);
  'port'?: (number);
}

export interface TcpAddress__Output {
  'ip': (_io_linkerd_proxy_net_IPAddress__Output | null);
  'port': (number);
}
