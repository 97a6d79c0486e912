// The server of a UDP listener's port. Each client (address and port) is a session: its first
// datagram picks the backend by weight (the listener's first UDPRoute) and one endpoint round-robin,
// and the session keeps them - its datagrams go there from a socket of its own, and what comes back
// to that socket goes to the client. A session ends after udpIdleMs without a datagram either way.
// No route, or an unusable backend's share: the client's datagrams are dropped.
import dgram from 'node:dgram';
import net from 'node:net';
import type { PortServer } from './listener-servers';
import { chooseStream, countConnection, logStream, type StreamChoice, type StreamDeps } from './streams';

interface Session {
  up?: dgram.Socket;
  timer: NodeJS.Timeout;
  choice?: StreamChoice;
  started: number;
  datagramsIn: number;
  datagramsOut: number;
}

export function udpServer(deps: StreamDeps, gateway: string, port: number): PortServer {
  let socket: dgram.Socket | undefined;
  const sessions = new Map<string, Session>();
  const end = (key: string) => {
    const s = sessions.get(key);
    if (!s) return;
    sessions.delete(key);
    clearTimeout(s.timer);
    s.up?.close();
    if (s.choice?.endpoint) logStream(deps, gateway, s.choice, 'UDP', { client: key.replace('|', ':'), datagramsIn: s.datagramsIn, datagramsOut: s.datagramsOut, ms: Math.round(performance.now() - s.started) });
  };
  const onMessage = (msg: Buffer, from: dgram.RemoteInfo) => {
    const key = `${from.address}|${from.port}`;
    let s = sessions.get(key);
    if (!s) {
      const c = chooseStream(deps, gateway, port, 'UDP');
      countConnection(deps, gateway, c, 'UDP', c?.endpoint ? 'forwarded' : 'refused');
      // a refused session is remembered too, so that its datagrams keep being dropped until it idles out
      s = { timer: setTimeout(() => end(key), deps.udpIdleMs), started: performance.now(), datagramsIn: 0, datagramsOut: 0, ...(c ? { choice: c } : {}) };
      s.timer.unref();
      sessions.set(key, s);
      if (c?.endpoint) {
        const ep = c.endpoint;
        const up = dgram.createSocket(net.isIPv6(ep.address) ? 'udp6' : 'udp4');
        up.on('message', (answer) => {
          const live = sessions.get(key);
          if (live) {
            live.timer.refresh();
            live.datagramsOut++;
          }
          socket?.send(answer, from.port, from.address);
        });
        up.on('error', () => end(key));
        up.connect(ep.port, ep.address);
        s.up = up;
      }
    }
    s.timer.refresh();
    s.datagramsIn++;
    if (s.up) sendUp(s.up, msg);
  };
  return {
    kind: 'udp',
    listen: (p, host) => new Promise<void>((resolve, reject) => {
      const sock = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
      sock.once('error', (e: NodeJS.ErrnoException) => {
        sock.close();
        reject(new Error(`cannot listen on ${host}:${p}/udp: ${e.code ?? e.message}`));
      });
      sock.bind(p, host, () => {
        sock.removeAllListeners('error');
        sock.on('error', () => undefined);
        sock.on('message', onMessage);
        socket = sock;
        resolve();
      });
    }),
    close() {
      socket?.close();
      socket = undefined;
      for (const key of [...sessions.keys()]) end(key);
    },
    closeIdleConnections: () => undefined,
    closeAllConnections: () => undefined,
  };
}

/** A datagram to the session's endpoint; one sent while the socket still connects waits for it. */
function sendUp(up: dgram.Socket, msg: Buffer): void {
  try {
    up.send(msg);
  } catch {
    up.once('connect', () => up.send(msg));
  }
}
