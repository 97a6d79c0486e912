// Authorization servers for the ExternalAuth filter, as real servers on loopback: HTTP (200 allows,
// anything else denies) and gRPC speaking Envoy's envoy.service.auth.v3.Authorization/Check (over
// @grpc/grpc-js, messages from the Envoy protos of @grpc/grpc-js-xds). Each decides by a function
// of the request it was asked about and logs what it was asked.
import http from 'node:http';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import * as grpc from '@grpc/grpc-js';

export interface AuthAsk {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** the body the server was sent (gRPC: attributes.request.http.body or raw_body) */
  body: Buffer;
  /** gRPC: the field the body came in, and attributes.request.http.size */
  bodyField?: 'body' | 'raw_body';
  size?: string;
}
export type AuthDecision = { allow: true; headers?: Record<string, string> } | { allow: false; status: number; body: string; headers?: Record<string, string> };
export interface AuthServer { port: number; asked: AuthAsk[]; close(): Promise<void> }

export function startHTTPAuthServer(decide: (a: AuthAsk) => AuthDecision | 'hang'): Promise<AuthServer> {
  const asked: AuthAsk[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const a = { method: req.method ?? '', path: req.url ?? '', headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), body: Buffer.concat(chunks) };
      asked.push(a);
      const d = decide(a);
      if (d === 'hang') return;
      if (d.allow) res.writeHead(200, d.headers ?? {}).end();
      else res.writeHead(d.status, { 'content-type': 'text/plain', ...(d.headers ?? {}) }).end(d.body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    port: (server.address() as { port: number }).port, asked,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  })));
}

const require = createRequire(import.meta.url);
function checkTypes() {
  protobuf.common('descriptor', require('protobufjs/google/protobuf/descriptor.json').nested.google.nested.protobuf.nested);
  const deps = join(dirname(require.resolve('@grpc/grpc-js-xds/package.json')), 'deps');
  const dirs = ['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((d) => join(deps, d));
  const root = new protobuf.Root();
  root.resolvePath = (_o, target) => dirs.map((d) => join(d, target)).find((p) => existsSync(p)) ?? target;
  root.loadSync('envoy/service/auth/v3/external_auth.proto', { keepCase: true });
  root.resolveAll();
  return { request: root.lookupType('envoy.service.auth.v3.CheckRequest'), response: root.lookupType('envoy.service.auth.v3.CheckResponse') };
}

export async function startGRPCAuthServer(decide: (a: AuthAsk) => AuthDecision): Promise<AuthServer> {
  const { request, response } = checkTypes();
  const asked: AuthAsk[] = [];
  const server = new grpc.Server();
  const header = (h: Record<string, string>) => Object.entries(h).map(([key, value]) => ({ header: { key, value } }));
  server.addService({
    Check: {
      path: '/envoy.service.auth.v3.Authorization/Check', requestStream: false, responseStream: false,
      requestDeserialize: (b: Buffer) => request.toObject(request.decode(b), { longs: String }),
      responseSerialize: (o: object) => Buffer.from(response.encode(response.fromObject(o)).finish()),
      requestSerialize: () => Buffer.alloc(0), responseDeserialize: () => ({}),
    },
  } as grpc.ServiceDefinition, {
    Check: (call: grpc.ServerUnaryCall<any, any>, cb: grpc.sendUnaryData<any>) => {
      const h = call.request?.attributes?.request?.http ?? {};
      const raw = h.raw_body !== undefined && h.raw_body.length > 0;
      const a: AuthAsk = {
        method: h.method ?? '', path: h.path ?? '', headers: h.headers ?? {}, size: h.size,
        body: raw ? Buffer.from(h.raw_body) : Buffer.from(h.body ?? '', 'utf8'),
        ...(raw ? { bodyField: 'raw_body' as const } : h.body !== undefined && h.body !== '' ? { bodyField: 'body' as const } : {}),
      };
      asked.push(a);
      const d = decide(a);
      cb(null, d.allow
        ? { status: { code: 0 }, ok_response: { headers: header(d.headers ?? {}) } }
        : { status: { code: 7 }, denied_response: { status: { code: d.status }, body: d.body, headers: header(d.headers ?? {}) } });
    },
  });
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  return { port, asked, close: () => new Promise<void>((r) => server.tryShutdown(() => r())) };
}

/**
 * What the conformance image of #5113 is read to do (test/corpora/conformance/upcoming/README.md):
 * approve requests whose path ends in /allowed, deny the others with 403 and this body.
 */
export function conformanceDecision(a: AuthAsk): AuthDecision {
  return a.path.split('?')[0].endsWith('/allowed') ? { allow: true } : { allow: false, status: 403, body: 'Access denied by external auth server' };
}
