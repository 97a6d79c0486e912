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
  const port = typeof req.port === 'number' ? req.port : undefined;
  if (!protocol) {
    const l = table.listeners.find((x) => port === undefined || x.port === port);
    protocol = (l && PROTOCOL_OF_LISTENER[l.protocol]) || 'http';
  }
  const host = normalizeHost(req.hostname);
  const sni = req.sni !== undefined && req.sni !== null && req.sni !== '' ? normalizeHost(req.sni) : host;
  const { path: rawPath, query: inlineQuery } = splitPathQuery(req.path ?? '/');
  const path = rawPath === '' ? '/' : rawPath;
  const rawQuery = inlineQuery ?? (typeof req.rawQuery === 'string' ? req.rawQuery : undefined);
  let query: Record<string, string>;
  if (rawQuery !== undefined) query = parseQuery(rawQuery);
  else query = { ...(req.query ?? {}) };
  const method = (req.method ?? (protocol === 'grpc' ? 'POST' : 'GET')).toUpperCase();
  return {
    protocol,
    ...(port !== undefined ? { port } : {}),
    host,
    sni,
    path,
    ...(rawQuery !== undefined ? { rawQuery } : {}),
    method,
    headers: lowerHeaders(req.headers),
    query,
    backendResponseHeaders: lowerHeaders(req.backendResponseHeaders),
  };
}
