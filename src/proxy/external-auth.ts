// The ExternalAuth filter carried out: before a request of a rule with one goes on, the proxy asks
// the authorization server the table names (CompiledExternalAuth). HTTP: the request's method to
// pathPrefix + path, with Host, Authorization, Content-Length and the allowed headers; 200 lets it
// through (with the answer's allowed headers set on it), any other answer goes to the client as it
// came. GRPC: Envoy's envoy.service.auth.v3.Authorization/Check over @grpc/grpc-js, messages from
// the Envoy protos that ship with @grpc/grpc-js-xds (protobufjs); status OK lets the request through
// (ok_response headers set on it), a denial's status, headers and body go to the client. No usable
// endpoint, no connection or no answer within the table's timeout: denied with 403 (fail closed).
// forwardBody (forwardBodyMaxSize > 0): the first maxSize bytes of the body go along (HTTP: as the
// auth request's body, Content-Length their number; gRPC: attributes.request.http.body, as Envoy
// fills it, with x-envoy-auth-partial-body in the headers); a longer body is sent truncated, as the
// API says, and reaches the backend whole: readBodyHead() holds at most maxSize bytes and the chunk
// that passes them, then leaves the rest in the client's stream until the server has answered.
import http from 'node:http';
import { createRequire } from 'node:module';
import { isUtf8 } from 'node:buffer';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import * as grpc from '@grpc/grpc-js';
import type { CompiledEndpoint, CompiledExternalAuth } from '../core/compile/types';
import { endpointOf, HOP_BY_HOP } from './http-common';
import type { Req } from './upstream-try';
import { hasBody } from './upstream-h1';

export type AuthOutcome =
  | { allow: true; headers: Record<string, string> }
  | { allow: false; status: number; headers: Record<string, string>; body: string };

const denied = (why: string): AuthOutcome => ({ allow: false, status: 403, headers: { 'content-type': 'text/plain' }, body: `${why}\n` });

/** Headers the HTTP auth server always gets (the API's list; Method and Path travel in the request line). */
const ALWAYS_SENT = ['host', 'authorization'];
/** Answer headers that are the auth server's own message's, never copied onto the request. */
const NOT_COPIED = new Set([...HOP_BY_HOP, 'host', ':authority', 'content-length', 'content-type', 'date', 'server']);

export interface AuthRequest {
  req: Req;
  /** path and query as the client sent them */
  path: string;
  rawQuery: string | undefined;
  authority: string;
  scheme: 'http' | 'https';
  id: string;
  /** forwardBody: the body's first bytes (at most forwardBodyMaxSize are sent) and whether more followed */
  body?: { head: Buffer; partial: boolean; size?: number };
}

/** The start of a request's body, read before the authorization server is asked. */
export type BodyHead =
  | { ok: true; head: Buffer; complete: boolean }
  | { ok: false; why: 'timeout' | 'aborted' };

/**
 * Reads the request's body up to `max` bytes (and no more than the chunk that passes them): the
 * whole body when it is no longer (`complete`: the stream is over, the bytes are the body), else
 * what was read is put back in front of the stream, paused, which is left for the forwarding to
 * read (the client is held back by flow control meanwhile). A body that does not arrive within
 * `timeoutMs` (`timeout`) or a client gone (`aborted`) ends it.
 */
export function readBodyHead(req: Req, max: number, timeoutMs: number): Promise<BodyHead> {
  if (!hasBody(req) || req.readableEnded) return Promise.resolve({ ok: true, head: Buffer.alloc(0), complete: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (r: BodyHead) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('aborted', onGone);
      req.off('close', onClose);
      resolve(r);
    };
    const onData = (c: Buffer) => {
      chunks.push(c);
      size += c.length;
      if (size <= max) return;
      req.pause();
      const head = Buffer.concat(chunks);
      settle({ ok: true, head, complete: false });
      req.unshift(head);
    };
    const onEnd = () => settle({ ok: true, head: Buffer.concat(chunks), complete: true });
    const onGone = () => settle({ ok: false, why: 'aborted' });
    const onClose = () => {
      if (!req.readableEnded) onGone();
    };
    const timer = setTimeout(() => {
      req.pause();
      settle({ ok: false, why: 'timeout' });
    }, timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('aborted', onGone);
    req.on('close', onClose);
  });
}

/** The bytes sent of a body head: at most forwardBodyMaxSize. */
function sentBody(cfg: CompiledExternalAuth, r: AuthRequest): { bytes: Buffer; partial: boolean } | undefined {
  const max = cfg.forwardBodyMaxSize ?? 0;
  if (max <= 0) return undefined;
  const head = r.body?.head ?? Buffer.alloc(0);
  return { bytes: head.length > max ? head.subarray(0, max) : head, partial: (r.body?.partial ?? false) || head.length > max };
}

export function authorize(cfg: CompiledExternalAuth, r: AuthRequest): Promise<AuthOutcome> {
  const ep = cfg.backend.valid ? endpointOf(cfg.backend) : undefined;
  if (!ep) return Promise.resolve(denied('the authorization server has no usable endpoint'));
  return cfg.protocol === 'GRPC' ? checkGRPC(cfg, ep, r) : checkHTTP(cfg, ep, r);
}

function clientHeaders(req: Req): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k.startsWith(':') || HOP_BY_HOP.has(k)) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function checkHTTP(cfg: CompiledExternalAuth, ep: CompiledEndpoint, r: AuthRequest): Promise<AuthOutcome> {
  const all = clientHeaders(r.req);
  const sent: Record<string, string> = { 'x-request-id': r.id };
  for (const k of [...ALWAYS_SENT, ...cfg.allowedHeaders]) if (all[k] !== undefined) sent[k] = all[k];
  sent.host = r.authority;
  // Content-Length: the number of bytes forwarded (0 without forwardBody), whatever the client's said
  const body = sentBody(cfg, r)?.bytes;
  sent['content-length'] = String(body?.length ?? 0);
  delete sent['transfer-encoding'];
  const prefix = (cfg.pathPrefix ?? '').replace(/\/+$/, '');
  const path = `${prefix}${r.path}${r.rawQuery !== undefined ? `?${r.rawQuery}` : ''}`;
  return new Promise((resolve) => {
    const out = http.request({ host: ep.address, port: ep.port, method: r.req.method ?? 'GET', path, headers: sent, agent: false, timeout: cfg.timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => resolve(denied('the authorization server\'s answer broke off')));
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        if (res.statusCode === 200) {
          const allowed = cfg.allowedResponseHeaders;
          resolve({ allow: true, headers: Object.fromEntries(Object.entries(headers).filter(([k]) => (allowed.length ? allowed.includes(k) : !NOT_COPIED.has(k)))) });
        } else {
          for (const k of HOP_BY_HOP) delete headers[k];
          delete headers['content-length'];
          resolve({ allow: false, status: res.statusCode ?? 403, headers, body: Buffer.concat(chunks).toString('utf8') });
        }
      });
    });
    out.on('timeout', () => out.destroy(new Error('timed out')));
    out.on('error', (e) => resolve(denied(`the authorization server could not be asked (${(e as NodeJS.ErrnoException).code ?? e.message})`)));
    out.end(body?.length ? body : undefined);
  });
}

// ---- gRPC (Envoy ext_authz v3) -------------------------------------------------------------------

const require = createRequire(import.meta.url);
let types: { request: protobuf.Type; response: protobuf.Type } | undefined;

/** CheckRequest and CheckResponse, loaded once from the Envoy protos (field names as in the protos). */
function checkTypes(): { request: protobuf.Type; response: protobuf.Type } {
  if (types) return types;
  protobuf.common('descriptor', require('protobufjs/google/protobuf/descriptor.json').nested.google.nested.protobuf.nested);
  const deps = join(dirname(require.resolve('@grpc/grpc-js-xds/package.json')), 'deps');
  const dirs = ['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((d) => join(deps, d));
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => dirs.map((d) => join(d, target)).find((p) => existsSync(p)) ?? target;
  root.loadSync('envoy/service/auth/v3/external_auth.proto', { keepCase: true });
  root.resolveAll();
  return (types = { request: root.lookupType('envoy.service.auth.v3.CheckRequest'), response: root.lookupType('envoy.service.auth.v3.CheckResponse') });
}

const clients = new Map<string, grpc.Client>();
function clientFor(ep: CompiledEndpoint): grpc.Client {
  const key = `${ep.address}:${ep.port}`;
  let c = clients.get(key);
  if (!c) clients.set(key, (c = new grpc.Client(key, grpc.credentials.createInsecure())));
  return c;
}

/** Closes the gRPC channels to authorization servers (the proxy's stop). */
export function closeAuthClients(): void {
  for (const c of clients.values()) c.close();
  clients.clear();
}

interface HeaderOption { header?: { key?: string; value?: string; raw_value?: Uint8Array | string } }
const headerList = (list: HeaderOption[] | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const h of list ?? []) {
    const key = h.header?.key?.toLowerCase();
    if (!key) continue;
    const raw = h.header?.raw_value;
    out[key] = h.header?.value || (raw ? Buffer.from(raw as Uint8Array).toString('utf8') : '');
  }
  return out;
};

function checkGRPC(cfg: CompiledExternalAuth, ep: CompiledEndpoint, r: AuthRequest): Promise<AuthOutcome> {
  const { request: Req_, response: Res_ } = checkTypes();
  const all = clientHeaders(r.req);
  const headers = cfg.allowedHeaders.length ? Object.fromEntries(Object.entries(all).filter(([k]) => cfg.allowedHeaders.includes(k))) : all;
  const path = `${r.path}${r.rawQuery !== undefined ? `?${r.rawQuery}` : ''}`;
  // Envoy never passes on a client's own x-envoy-auth-partial-body, and sets it when it sends a body
  delete headers['x-envoy-auth-partial-body'];
  const sent = sentBody(cfg, r);
  const body: Record<string, unknown> = {};
  if (sent) {
    headers['x-envoy-auth-partial-body'] = sent.partial ? 'true' : 'false';
    // body is a proto3 string: text that is not UTF-8 goes as raw_body (Envoy's pack_as_bytes) rather than mangled
    if (isUtf8(sent.bytes)) body.body = sent.bytes.toString('utf8');
    else body.raw_body = sent.bytes;
  }
  const msg = Req_.fromObject({ attributes: { request: { http: {
    id: r.id, method: r.req.method ?? 'GET', headers: { ...headers, ':authority': r.authority, ':method': r.req.method ?? 'GET', ':path': path },
    path, host: r.authority, scheme: r.scheme, query: r.rawQuery ?? '', protocol: `HTTP/${r.req.httpVersion}`,
    // Envoy: the bytes received so far
    size: sent ? String(r.body?.size ?? r.body?.head.length ?? 0) : '-1', ...body,
  } } } });
  return new Promise((resolve) => {
    clientFor(ep).makeUnaryRequest('/envoy.service.auth.v3.Authorization/Check',
      (m: protobuf.Message) => Buffer.from(Req_.encode(m).finish()),
      (b: Buffer) => Res_.toObject(Res_.decode(b), { longs: String, enums: Number, defaults: false }) as Record<string, any>,
      msg, new grpc.Metadata(), { deadline: Date.now() + cfg.timeoutMs },
      (err, res) => {
        if (err || !res) return resolve(denied(`the authorization server could not be asked (${err?.details || err?.message || 'no answer'})`));
        if ((res.status?.code ?? 0) === 0) return resolve({ allow: true, headers: headerList(res.ok_response?.headers) });
        const d = res.denied_response;
        const status = Number(d?.status?.code) || 403;
        resolve({ allow: false, status, headers: headerList(d?.headers), body: String(d?.body ?? '') });
      });
  });
}
