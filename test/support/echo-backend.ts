// A backend for proxy tests: answers every request with what it received (method, path, host,
// headers, protocol) and the Service it stands for, so that a test can tell where a request went
// and how it arrived. `?delay=MS` holds the answer; `?status=CODE` answers with that code.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EchoBackend {
  port: number;
  /** how many requests it has answered */
  count(): number;
  close(): Promise<void>;
}

export interface EchoAnswer {
  service: string;
  namespace: string;
  method: string;
  path: string;
  host: string;
  headers: Record<string, string | string[] | undefined>;
  protocol: string;
  body: string;
}

export async function startEchoBackend(namespace: string, service: string): Promise<EchoBackend> {
  let count = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      count++;
      const url = new URL(req.url ?? '/', 'http://x');
      const answer: EchoAnswer = {
        service, namespace, method: req.method ?? '', path: req.url ?? '', host: req.headers.host ?? '',
        headers: req.headers, protocol: `HTTP/${req.httpVersion}`, body: Buffer.concat(chunks).toString('utf8'),
      };
      const send = () => res.writeHead(Number(url.searchParams.get('status') ?? 200), { 'content-type': 'application/json', 'x-echo-service': service }).end(JSON.stringify(answer));
      const delay = Number(url.searchParams.get('delay') ?? 0);
      if (delay > 0) setTimeout(send, delay);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    count: () => count,
    close: () => new Promise((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}
