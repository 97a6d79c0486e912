// What a worker process serves on WORKER_PORT for its orchestrator and Prometheus: /healthz (the
// process answers), /readyz (PostgreSQL and Redis answer and the worker takes jobs) and /metrics.
// Plain node:http: three fixed paths need no router.
import { createServer, type Server } from 'node:http';
import type { Readiness } from './readiness';

function problem(status: number, title: string, detail: string): string {
  return JSON.stringify({ type: `https://switchyard.dev/problems/${status}`, title, status, detail });
}

export interface WorkerEndpointSources {
  /** the Prometheus text and its content type */
  metrics: () => Promise<{ text: string; contentType: string }>;
  readiness: () => Promise<Readiness>;
}

export function workerEndpoints(o: WorkerEndpointSources): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const answer = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405, 'application/problem+json', problem(405, 'Method Not Allowed', `${req.method} is not served here: GET /healthz, /readyz or /metrics`));
    if (path === '/healthz') return answer(200, 'application/json', JSON.stringify({ status: 'ok' }));
    if (path === '/readyz') {
      o.readiness().then(
        (r) => answer(r.down.length === 0 ? 200 : 503, 'application/json', JSON.stringify(r)),
        (e: unknown) => answer(503, 'application/problem+json', problem(503, 'Service Unavailable', `readiness could not be checked: ${(e as Error).message}`)),
      );
      return;
    }
    if (path === '/metrics') {
      o.metrics().then(
        ({ text, contentType }) => answer(200, contentType, text),
        (e: unknown) => answer(500, 'application/problem+json', problem(500, 'Internal Server Error', `metrics could not be collected: ${(e as Error).message}`)),
      );
      return;
    }
    answer(404, 'application/problem+json', problem(404, 'Not Found', `nothing at ${path}: this port serves /healthz, /readyz and /metrics`));
  });
}
