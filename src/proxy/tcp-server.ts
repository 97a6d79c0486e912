// The server of a TCP listener's port: each connection goes to the backend the listener's first
// TCPRoute picks by weight, one endpoint round-robin, and keeps it for its life. No route, or an
// unusable backend's share: the connection is reset.
import net from 'node:net';
import { listenOn, type PortServer } from './listener-servers';
import { chooseStream, countConnection, logStream, reset, splice, type StreamDeps } from './streams';

export function tcpServer(deps: StreamDeps, gateway: string, port: number): PortServer {
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const c = chooseStream(deps, gateway, port, 'TCP');
    if (!c?.endpoint) {
      countConnection(deps, gateway, c, 'TCP', 'refused');
      socket.on('error', () => undefined);
      return reset(socket);
    }
    countConnection(deps, gateway, c, 'TCP', 'forwarded');
    splice(deps, socket, c.endpoint, undefined, (fields) => logStream(deps, gateway, c, 'TCP', fields));
  });
  return {
    kind: 'tcp',
    listen: (p, host) => listenOn(server, p, host),
    close: () => void server.close(),
    closeIdleConnections: () => undefined,
    closeAllConnections() {
      for (const s of sockets) s.destroy();
    },
  };
}
