// TLS and plain HTTP on one port, told apart by the first byte (22 starts a TLS handshake, and no
// HTTP method): the Kubernetes clients reach the server over TLS, everything else as before.
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';

const TLS_HANDSHAKE = 0x16;

export function acceptTlsToo(server: HttpServer, tls: { cert: string; key: string }, handler: (req: IncomingMessage, res: ServerResponse) => void): HttpsServer {
  const secure = createHttpsServer({ cert: tls.cert, key: tls.key }, handler);
  secure.keepAliveTimeout = server.keepAliveTimeout;
  const plain = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    socket.once('readable', () => {
      const head = socket.read(1) as Buffer | null;
      if (head) socket.unshift(head);
      if (head && head[0] === TLS_HANDSHAKE) secure.emit('connection', socket);
      else for (const fn of plain) fn.call(server, socket);
    });
  });
  return secure;
}
