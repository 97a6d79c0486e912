// A resolve request in the form the matcher works on.
import type { CompiledTable } from '../compile/types';
import { lowerHeaders, type HeaderMap } from '../match/headers';
import { normalizeHost } from '../match/hostname';
import { parseQuery, splitPathQuery } from '../match/path';
import type { ResolveRequest } from './types';

export type Protocol = 'http' | 'https' | 'grpc' | 'tls' | 'tcp' | 'udp';

export interface NormalizedRequest {
  protocol: Protocol;
  port?: number;
  /** Host / :authority without port, lower case; "" when none */
  host: string;
  /** TLS server name; defaults to host */
  sni: string;
  path: string;
  rawQuery?: string;
  method: string;
  headers: HeaderMap;
  query: Record<string, string>;
  backendResponseHeaders: HeaderMap;
}

const PROTOCOL_OF_LISTENER: Record<string, Protocol> = { HTTP: 'http', HTTPS: 'https', TLS: 'tls', TCP: 'tcp', UDP: 'udp' };

export function normalizeRequest(req: ResolveRequest, table: CompiledTable): NormalizedRequest {
  let protocol = (req.protocol ? String(req.protocol).toLowerCase() : undefined) as Protocol | undefined;
  const port = typeof req.port === 'number' && Number.isFinite(req.port) ? req.port : undefined;
  if (!protocol) {
    const l = table.listeners.find((x) => port === undefined || x.port === port);
    protocol = (l && PROTOCOL_OF_LISTENER[l.protocol]) || 'http';
  }
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : v === undefined || v === null ? undefined : String(v));
  const host = normalizeHost(str(req.hostname));
  const sniRaw = str(req.sni);
  const sni = sniRaw ? normalizeHost(sniRaw) : host;
  const { path: rawPath, query: inlineQuery } = splitPathQuery(str(req.path) ?? '/');
  const path = rawPath === '' ? '/' : rawPath;
  const rawQuery = inlineQuery ?? (typeof req.rawQuery === 'string' ? req.rawQuery : undefined);
  let query: Record<string, string>;
  if (rawQuery !== undefined) query = parseQuery(rawQuery);
  else query = Object.fromEntries(Object.entries(isRecord(req.query) ? req.query : {}).map(([k, v]) => [k, String(v)]));
  const method = (str(req.method) || (protocol === 'grpc' ? 'POST' : 'GET')).toUpperCase();
  return {
    protocol,
    ...(port !== undefined ? { port } : {}),
    host,
    sni,
    path,
    ...(rawQuery !== undefined ? { rawQuery } : {}),
    method,
    headers: lowerHeaders(isRecord(req.headers) ? req.headers : undefined),
    query,
    backendResponseHeaders: lowerHeaders(isRecord(req.backendResponseHeaders) ? req.backendResponseHeaders : undefined),
  };
}

function isRecord(v: unknown): v is Record<string, string> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
