// Backends for the proxy's stream listeners: a TCP echo (or a TLS one, with its own certificate,
// for passthrough) that answers each chunk with "<service>:<chunk>", and a UDP echo that answers
// each datagram the same way, so that a test can tell which backend and endpoint a connection or
// session reached. Each counts the connections (UDP: distinct clients) it has seen.
import dgram from 'node:dgram';
import net from 'node:net';
import tls from 'node:tls';

export interface StreamBackend {
  port: number;
  /** connections accepted (UDP: client addresses seen) */
  connections(): number;
  close(): Promise<void>;
}

export async function startTcpEcho(service: string, secure?: { cert: string; key: string }): Promise<StreamBackend> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const onSocket = (s: net.Socket) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    s.on('data', (d) => s.write(`${service}:${d}`));
    s.on('end', () => s.end());
  };
  const server = secure ? tls.createServer({ ...secure, allowHalfOpen: true }, onSocket) : net.createServer({ allowHalfOpen: true }, onSocket);
  // a TLS server's connections still in their handshake are not among `sockets`: a half-open one (the
  // peer's FIN, allowHalfOpen) would hold close() forever
  const raw = new Set<net.Socket>();
  if (secure) server.on('connection', (s: net.Socket) => {
    raw.add(s);
    s.on('close', () => raw.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () => new Promise((r) => {
      server.close(() => r());
      for (const s of sockets) s.destroy();
      for (const s of raw) s.destroy();
    }),
  };
}

export async function startUdpEcho(service: string): Promise<StreamBackend> {
  const clients = new Set<string>();
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, from) => {
    clients.add(`${from.address}:${from.port}`);
    socket.send(`${service}:${msg}`, from.port, from.address);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  return {
    port: socket.address().port,
    connections: () => clients.size,
    close: () => new Promise((r) => socket.close(() => r())),
  };
}

/** A TCP (or TLS) client that sends lines and reads each answer. */
export interface StreamClient {
  socket: net.Socket;
  /** sends `text` and resolves with the next chunk that comes back */
  ask(text: string): Promise<string>;
  close(): void;
}

export function streamClient(socket: net.Socket): StreamClient {
  let waiting: ((s: string) => void) | undefined;
  let failed: ((e: Error) => void) | undefined;
  socket.on('data', (d) => {
    const w = waiting;
    waiting = undefined;
    w?.(String(d));
  });
  const fail = (e: Error) => failed?.(e);
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('the connection closed')));
  return {
    socket,
    ask: (text) => new Promise((resolve, reject) => {
      waiting = resolve;
      failed = reject;
      socket.write(text);
    }),
    close: () => socket.destroy(),
  };
}

/** A TCP connection, once it is open (rejects when it is refused or reset). */
export function tcpConnect(port: number): Promise<StreamClient> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => resolve(streamClient(s)));
    s.once('error', reject);
  });
}

/** A UDP client socket: one session at the proxy for its life. */
export async function udpClient(port: number): Promise<{ ask(text: string, timeoutMs?: number): Promise<string | undefined>; close(): void }> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  return {
    ask: (text, timeoutMs = 2000) => new Promise((resolve) => {
      const timer = setTimeout(() => {
        socket.off('message', onMessage);
        resolve(undefined);
      }, timeoutMs);
      const onMessage = (m: Buffer) => {
        clearTimeout(timer);
        socket.off('message', onMessage);
        resolve(String(m));
      };
      socket.on('message', onMessage);
      socket.send(text, port, '127.0.0.1');
    }),
    close: () => socket.close(),
  };
}
