// The ExternalAuth bridge of `switchyard nginx`: the njs dispatch cannot ask an authorization server
// itself (njs speaks no HTTP/2, so no Envoy ext_authz gRPC; nor can it hold the server's endpoints,
// which change without the routes), so it asks the agent, on a unix socket under the prefix, with a
// subrequest carrying the request (method, path, authority, every header) and the filter as the
// routes file has it. The agent asks the server with the reference proxy's own code
// (src/proxy/external-auth.ts: the same headers sent and taken, the same timeout, fail closed) at
// one of the endpoints its newest snapshots give for the server's Service port, and answers with
// the decision as JSON: {allow: true, headers} or {allow: false, status, headers, body}.
// forwardBody: the dispatch adds the body's first maxSize bytes (base64) and whether more followed;
// an ask may be as long as the largest maxSize of the tables allows, and no longer.
import http from 'node:http';
import { chmodSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import type { CompiledBackend, CompiledExternalAuth, CompiledTable } from '../core/compile/types';
import { backendKeyOf } from '../core/session/cookie';
import { authorize, closeAuthClients } from '../proxy/external-auth';
import type { Req } from '../proxy/upstream-try';
import { requestId } from '../proxy/http-common';

/** An ask's own size (the request's line and headers, as JSON), before a forwarded body. */
const MAX_ASK = 1 << 20;

export interface AuthBridge {
  path: string;
  close(): Promise<void>;
}

/** What the dispatch sends (switchyard.js authorize()). */
interface Ask {
  cfg: { key: string; protocol: 'GRPC' | 'HTTP'; timeoutMs: number; allowedHeaders: string[]; allowedResponseHeaders: string[]; pathPrefix?: string; forwardBodyMaxSize?: number };
  method: string;
  path: string;
  rawQuery?: string;
  authority: string;
  scheme: 'http' | 'https';
  httpVersion: string;
  headers: [string, string][];
  id: string;
  /** forwardBody: the body's first bytes (base64), whether more followed, the body's length */
  body?: string;
  bodyPartial?: boolean;
  bodySize?: number;
}

const isStrings = (a: unknown): a is string[] => Array.isArray(a) && a.every((x) => typeof x === 'string');

function parseAsk(text: string): Ask | undefined {
  let a: any;
  try {
    a = JSON.parse(text);
  } catch {
    return undefined;
  }
  const c = a?.cfg;
  if (!c || typeof c.key !== 'string' || (c.protocol !== 'GRPC' && c.protocol !== 'HTTP') || typeof c.timeoutMs !== 'number' || !isStrings(c.allowedHeaders) || !isStrings(c.allowedResponseHeaders)) return undefined;
  if (c.pathPrefix !== undefined && typeof c.pathPrefix !== 'string') return undefined;
  if (c.forwardBodyMaxSize !== undefined && (!Number.isInteger(c.forwardBodyMaxSize) || c.forwardBodyMaxSize < 0)) return undefined;
  if (a.body !== undefined && (typeof a.body !== 'string' || typeof a.bodyPartial !== 'boolean')) return undefined;
  if (typeof a.method !== 'string' || typeof a.path !== 'string' || typeof a.authority !== 'string' || typeof a.id !== 'string') return undefined;
  if (a.rawQuery !== undefined && typeof a.rawQuery !== 'string') return undefined;
  if (!Array.isArray(a.headers) || !a.headers.every((h: unknown) => Array.isArray(h) && h.length === 2 && typeof h[0] === 'string' && typeof h[1] === 'string')) return undefined;
  return { ...a, scheme: a.scheme === 'https' ? 'https' : 'http', httpVersion: typeof a.httpVersion === 'string' ? a.httpVersion : '1.1' };
}

/** The client's headers as Node would have them: lower-case names, repeated ones joined. */
function headersOf(raw: [string, string][]): IncomingHttpHeaders {
  const out: Record<string, string> = {};
  for (const [n, v] of raw) {
    const k = n.toLowerCase();
    out[k] = out[k] === undefined ? v : `${out[k]}${k === 'cookie' ? '; ' : ', '}${v}`;
  }
  return out;
}

/** The server's Service port with its endpoints, from the newest tables (any rule or filter naming it). */
/** The largest forwardBody of the tables: an ask carries at most that many bytes of a body. */
function largestForwardBody(tables: readonly CompiledTable[]): number {
  let max = 0;
  for (const t of tables) for (const r of t.rules) for (const f of r.filters) max = Math.max(max, f.externalAuth?.forwardBodyMaxSize ?? 0);
  return max;
}

function backendOf(tables: readonly CompiledTable[], key: string): CompiledBackend | undefined {
  let found: CompiledBackend | undefined;
  const take = (b: CompiledBackend | undefined) => {
    if (!b || !b.valid || backendKeyOf(b) !== key) return;
    if (!found || (found.endpoints.length === 0 && b.endpoints.length > 0)) found = b;
  };
  for (const t of tables) {
    for (const r of t.rules) {
      for (const f of r.filters) take(f.externalAuth?.backend);
      for (const b of r.backends) {
        take(b);
        for (const f of b.filters ?? []) take(f.externalAuth?.backend);
      }
    }
  }
  return found;
}

export function startAuthBridge(path: string, tables: () => readonly CompiledTable[]): Promise<AuthBridge> {
  const server = http.createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // base64 makes 4 bytes of 3
    const limit = MAX_ASK + Math.ceil(largestForwardBody(tables()) / 3) * 4;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on('end', () => {
      const ask = req.method === 'POST' && size <= limit ? parseAsk(Buffer.concat(chunks).toString('utf8')) : undefined;
      if (!ask) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('not an authorization question\n');
        return;
      }
      const [ns, rest] = ask.cfg.key.split('/');
      const backend = backendOf(tables(), ask.cfg.key) ?? ({ namespace: ns, name: rest?.replace(/:.*$/, '') ?? '', weight: 1, valid: false, endpoints: [] } as unknown as CompiledBackend);
      const cfg: CompiledExternalAuth = {
        protocol: ask.cfg.protocol, backend, timeoutMs: ask.cfg.timeoutMs,
        allowedHeaders: ask.cfg.allowedHeaders, allowedResponseHeaders: ask.cfg.allowedResponseHeaders,
        ...(ask.cfg.pathPrefix ? { pathPrefix: ask.cfg.pathPrefix } : {}),
        ...(ask.cfg.forwardBodyMaxSize ? { forwardBodyMaxSize: ask.cfg.forwardBodyMaxSize } : {}),
      };
      // the body as the proxy reads it: its first bytes, whether more followed (size: all it had)
      const body = ask.body !== undefined ? { head: Buffer.from(ask.body, 'base64'), partial: ask.bodyPartial === true, ...(typeof ask.bodySize === 'number' && ask.bodySize >= 0 ? { size: ask.bodySize } : {}) } : undefined;
      const client = { headers: headersOf(ask.headers), method: ask.method, httpVersion: ask.httpVersion } as unknown as Req;
      authorize(cfg, { req: client, path: ask.path, rawQuery: ask.rawQuery, authority: ask.authority, scheme: ask.scheme, id: requestId(ask.id), ...(body ? { body } : {}) }).then((o) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(o));
      }, (e: Error) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ allow: false, status: 403, headers: { 'content-type': 'text/plain' }, body: `the authorization server could not be asked (${e.message})\n` }));
      });
    });
  });
  rmSync(path, { force: true });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      // nginx's workers (user nobody when the master runs as root) connect to it
      chmodSync(path, 0o666);
      resolve({
        path,
        close: () => new Promise<void>((r) => {
          closeAuthClients();
          server.close(() => r());
          server.closeAllConnections();
        }),
      });
    });
  });
}
