// switchyard resolve GATEWAY --host H --path P [--method M] [--header k=v]...: where would this
// request go, and why.
import { UsageError } from '../args';
import { unwrap } from '../client';
import { HELP, NAMESPACE, type Command } from '../command';
import { table } from '../format';
import type { components } from '../../generated/api';

type ResolveRequest = components['schemas']['ResolveRequest'];
type ResolveResponse = components['schemas']['ResolveResponse'];

function pairs(list: string[] | undefined, what: string): Record<string, string> | undefined {
  if (!list?.length) return undefined;
  const out: Record<string, string> = {};
  for (const p of list) {
    const i = p.search(/[=:]/);
    if (i <= 0) throw new UsageError(`${what} must be NAME=VALUE, got "${p}"`);
    Object.defineProperty(out, p.slice(0, i).trim(), { value: p.slice(i + 1).trim(), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function routeName(r: ResolveResponse['route']): string {
  if (!r) return '-';
  if (r.redacted || !r.namespace) return `a ${r.kind} in another namespace`;
  return `${r.kind} ${r.namespace}/${r.name}`;
}

export function renderResolve(a: ResolveResponse): string {
  const lines: string[] = [];
  let decision: string;
  if (a.forwarded) decision = `forwarded by ${routeName(a.route)}, rule ${a.ruleIndex}${a.ruleName ? ` (${a.ruleName})` : ''}`;
  else if (a.connectionRejected) decision = 'connection refused';
  else if (a.redirect) decision = `redirected (${a.redirect.statusCode})`;
  else decision = `answered by the gateway${a.statusCode ? ` with ${a.statusCode}` : ''}${a.grpcStatus ? ` (gRPC ${a.grpcStatus})` : ''}`;
  lines.push(`Decision:     ${decision}`);
  lines.push(`Matched:      ${a.matched ? `yes, by ${routeName(a.route)} rule ${a.ruleIndex}` : 'no'}`);
  if (a.decidedBy) lines.push(`Decided by:   ${a.decidedBy}`);
  lines.push(`Listener:     ${a.listener ?? '-'}`);
  if (a.statusCode !== undefined) lines.push(`Status code:  ${a.statusCode}`);
  if (a.redirect) {
    const r = a.redirect;
    lines.push(`Redirect:     ${r.statusCode} ${r.scheme}://${r.hostname}${r.port ? `:${r.port}` : ''}${r.path}`);
  }
  if (a.rewrite && (a.rewrite.hostname || a.rewrite.path)) lines.push(`Rewrite:      ${[a.rewrite.hostname && `host ${a.rewrite.hostname}`, a.rewrite.path && `path ${a.rewrite.path}`].filter(Boolean).join(', ')}`);
  if (a.backends.length) {
    lines.push('Backends:');
    lines.push(table(['BACKEND', 'PORT', 'WEIGHT', 'SHARE', 'VALID', 'REASON'], a.backends.map((b, i) => [
      `${i === a.chosenBackend ? '* ' : '  '}${b.kind ?? 'Service'} ${b.namespace ? `${b.namespace}/` : ''}${b.name ?? ''}`,
      b.port !== undefined ? String(b.port) : '-', String(b.weight),
      b.share !== undefined ? `${Math.round(b.share * 1000) / 10}%` : '-', b.valid ? 'yes' : 'no', b.reason ?? '',
    ])).split('\n').map((l) => `  ${l}`).join('\n'));
  }
  const headers = (name: string, h: Record<string, string> | undefined) => {
    if (!h || Object.keys(h).length === 0) return;
    lines.push(`${name}:`);
    for (const [k, v] of Object.entries(h)) lines.push(`  ${k}: ${v}`);
  };
  headers('Request headers to the backend', a.requestHeaders);
  headers('Response headers to the client', a.responseHeaders);
  if (a.explanation.length) {
    lines.push('Explanation:');
    for (const e of a.explanation) lines.push(`  - ${e}`);
  }
  return lines.join('\n') + '\n';
}

export const resolveCommand: Command = {
  name: 'resolve',
  usage: 'switchyard resolve GATEWAY --host H --path P [--method M] [--header k=v]... [-n NS]',
  options: [
    { name: 'host', type: 'string', value: 'HOST', help: 'Host header (or gRPC authority); a :port suffix is ignored' },
    { name: 'path', type: 'string', value: 'PATH', help: 'request path, optionally with ?query' },
    { name: 'method', short: 'X', type: 'string', value: 'METHOD', help: 'request method (default GET)' },
    { name: 'header', short: 'H', type: 'list', value: 'NAME=VALUE', help: 'request header; repeatable' },
    { name: 'query', type: 'list', value: 'NAME=VALUE', help: 'query parameter; repeatable' },
    { name: 'port', type: 'string', value: 'PORT', help: 'listener port (default: the lowest for the protocol)' },
    { name: 'protocol', type: 'string', value: 'PROTO', help: 'HTTP, HTTPS, GRPC, TLS, TCP or UDP' },
    { name: 'sni', type: 'string', value: 'NAME', help: 'TLS server name (default: the host)' },
    NAMESPACE,
    { name: 'output', short: 'o', type: 'string', value: 'text|json', help: 'output format (default text)' },
    HELP,
  ],
  async run({ positionals, options }, { api, env, io }) {
    const [gateway, extra] = positionals;
    if (!gateway) throw new UsageError('resolve needs a GATEWAY name');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    const namespace = (options.namespace as string | undefined) ?? env.namespace;
    let port: number | undefined;
    if (options.port !== undefined) {
      port = Number(options.port);
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError('--port must be a port number');
    }
    const body: ResolveRequest = {
      ...(options.host ? { hostname: options.host as string } : {}),
      ...(options.path ? { path: options.path as string } : {}),
      ...(options.method ? { method: (options.method as string).toUpperCase() } : {}),
      ...(options.sni ? { sni: options.sni as string } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(options.protocol ? { protocol: (options.protocol as string).toUpperCase() as ResolveRequest['protocol'] } : {}),
    };
    const headers = pairs(options.header as string[] | undefined, '--header');
    const query = pairs(options.query as string[] | undefined, '--query');
    if (headers) body.headers = headers;
    if (query) body.query = query;
    const answer = unwrap(await api.POST('/api/v1/namespaces/{namespace}/gateways/{name}/resolve', { params: { path: { namespace, name: gateway } }, body }));
    if (options.output === 'json') io.out(JSON.stringify(answer, null, 2) + '\n');
    else io.out(renderResolve(answer));
    return 0;
  },
};
