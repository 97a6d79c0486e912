// What rendering one configuration collects as it goes: upstreams named, request headers the filters
// touch (each gets an njs variable), mirrors (each a variable saying whether this request is copied),
// the TLS material, and what nginx cannot honour.
import type { CompiledBackend, CompiledListener, CompiledRule, CompiledTable } from '../compile/types';
import { Material } from './material';
import { headerVar, upstreamName } from './names';
import type { NginxRenderInput } from './types';
import type { HttpUpstreamSpec, StreamUpstreamSpec } from './upstreams';

export interface GatewayCtx {
  /** position of the Gateway in the input: prefixes its names */
  index: number;
  gateway: string;
  table: CompiledTable;
  /** index of its first rule in the njs table's rule list */
  ruleBase: number;
}

export class RenderCtx {
  readonly httpUpstreams = new Map<string, HttpUpstreamSpec>();
  readonly streamUpstreams = new Map<string, StreamUpstreamSpec>();
  readonly headers = new Map<string, string>();
  readonly gaps: string[] = [];
  readonly material: Material;
  mirrors = 0;
  /** backends of rules that keep cookie sessions ("namespace/name:port"): their endpoints a session may be pinned to */
  readonly pinned = new Set<string>();
  /** some rule asks an authorization server (the dispatch's subrequest to the agent's bridge) */
  auth = false;
  readonly mirrorByKey = new Map<string, { v: string; p: number; location: string; text: string }>();

  constructor(readonly input: NginxRenderInput) {
    this.material = new Material(input.dir, input.gateways.flatMap((g) => g.secrets));
  }

  run(name: string): string {
    return `${this.input.dir}/run/${name}.sock`;
  }

  listen(port: number): string {
    const host = this.input.host.includes(':') ? `[${this.input.host}]` : this.input.host;
    return `${host}:${port + this.input.portOffset}`;
  }

  httpUpstream(b: CompiledBackend, copies = 1): string {
    const name = upstreamName(b, copies);
    if (!this.httpUpstreams.has(name)) this.httpUpstreams.set(name, { name, backend: { namespace: b.namespace, name: b.name, ...(b.port !== undefined ? { port: b.port } : {}) }, copies });
    return name;
  }

  headerVar(name: string): string {
    const lower = name.toLowerCase();
    let v = this.headers.get(lower);
    if (!v) this.headers.set(lower, (v = headerVar(lower)));
    return v;
  }

  gap(g: GatewayCtx, where: string, why: string): void {
    const line = `${g.gateway} ${where}: ${why}`;
    if (!this.gaps.includes(line)) this.gaps.push(line);
  }
}

/** nginx's proxy_next_upstream tries of a rule: each endpoint is listed that many times in its upstream. */
export function copiesOf(rule: CompiledRule): number {
  return rule.retry ? rule.retry.attempts + 1 : 1;
}

export const hasExternalAuth = (rule: CompiledRule): boolean => !rule.invalid && rule.filters.some((f) => f.type === 'ExternalAuth' && !!f.externalAuth);

export function routeName(g: GatewayCtx, rule: number): string {
  const r = g.table.rules[rule];
  const route = g.table.routes[r.route];
  return `${route.kind} ${route.namespace}/${route.name} rule ${r.index}`;
}

export function listenerName(l: CompiledListener): string {
  return `listener ${l.listenerSet ? `${l.listenerSet.namespace}/${l.listenerSet.name}/` : ''}${l.name} (port ${l.port})`;
}
