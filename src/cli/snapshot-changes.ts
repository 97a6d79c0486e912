// What changed between two snapshots of a Gateway, in words (for `switchyard watch`).
import type { components } from '../generated/api';

type Snapshot = components['schemas']['Snapshot'];
type Table = components['schemas']['CompiledTable'];
type Listener = components['schemas']['CompiledListener'];

const ENTRY_KINDS = [['httpRoutes', 'HTTPRoute'], ['grpcRoutes', 'GRPCRoute'], ['tlsRoutes', 'TLSRoute'], ['tcpRoutes', 'TCPRoute'], ['udpRoutes', 'UDPRoute']] as const;

function routeKey(r: { kind: string; namespace: string; name: string }): string {
  return `${r.kind} ${r.namespace}/${r.name}`;
}

function listenerShape(l: Listener): string {
  return `${l.protocol}/${l.port}${l.hostname ? ` ${l.hostname}` : ''}${l.tls ? ` tls ${l.tls.mode}` : ''}`;
}

interface BackendState {
  valid: boolean;
  reason?: string;
  weight: number;
  endpoints: string[];
}

function backends(t: Table): Map<string, BackendState> {
  const out = new Map<string, BackendState>();
  for (const rule of t.rules) {
    const route = t.routes[rule.route];
    if (!route) continue;
    for (const b of rule.backends) {
      out.set(`${b.kind} ${b.namespace}/${b.name}${b.port !== undefined ? `:${b.port}` : ''} (${routeKey(route)} rule ${rule.index})`, {
        valid: b.valid, reason: b.reason, weight: b.weight ?? 1, endpoints: (b.endpoints ?? []).map((e) => `${e.address}:${e.port}`),
      });
    }
  }
  return out;
}

export function summarize(s: Snapshot): string {
  const t = s.table;
  const entries = t.listeners.reduce((n, l) => n + ENTRY_KINDS.reduce((m, [f]) => m + ((l[f] as unknown[] | undefined)?.length ?? 0), 0), 0);
  const eps = [...backends(t).values()].reduce((n, b) => n + b.endpoints.length, 0);
  return `${t.listeners.length} listener${t.listeners.length === 1 ? '' : 's'}, ${t.routes.length} route${t.routes.length === 1 ? '' : 's'}, ${entries} match entr${entries === 1 ? 'y' : 'ies'}, ${eps} endpoint${eps === 1 ? '' : 's'}${t.unattached.length ? `, ${t.unattached.length} unattached` : ''}`;
}

export function changes(prev: Snapshot, next: Snapshot): string[] {
  const out: string[] = [];
  const a = prev.table;
  const b = next.table;

  const la = new Map(a.listeners.map((l) => [l.name, l]));
  const lb = new Map(b.listeners.map((l) => [l.name, l]));
  for (const [name, l] of lb) {
    const old = la.get(name);
    if (!old) {
      out.push(`listener ${name} added (${listenerShape(l)})`);
      continue;
    }
    if (listenerShape(old) !== listenerShape(l)) out.push(`listener ${name}: ${listenerShape(old)} -> ${listenerShape(l)}`);
    if (old.valid !== l.valid) out.push(`listener ${name}: ${l.valid ? 'now valid' : 'no longer valid'}`);
    for (const [field, kind] of ENTRY_KINDS) {
      const x = (old[field] as unknown[] | undefined)?.length ?? 0;
      const y = (l[field] as unknown[] | undefined)?.length ?? 0;
      if (x !== y) out.push(`listener ${name}: ${kind} match entries ${x} -> ${y}`);
    }
  }
  for (const name of la.keys()) if (!lb.has(name)) out.push(`listener ${name} removed`);

  const ra = new Map(a.routes.map((r) => [routeKey(r), r]));
  const rb = new Map(b.routes.map((r) => [routeKey(r), r]));
  for (const [key, r] of rb) {
    const old = ra.get(key);
    if (!old) out.push(`${key} attached`);
    else if ((old.generation ?? 0) !== (r.generation ?? 0)) out.push(`${key} changed (generation ${old.generation ?? '?'} -> ${r.generation ?? '?'})`);
  }
  for (const key of ra.keys()) if (!rb.has(key)) out.push(`${key} detached`);

  const ba = backends(a);
  const bb = backends(b);
  for (const [key, x] of bb) {
    const old = ba.get(key);
    if (!old) continue; // part of a route or rule reported above
    if (old.valid !== x.valid || old.reason !== x.reason) out.push(`backend ${key}: ${x.valid ? 'now valid' : `invalid (${x.reason ?? 'unknown reason'}${old.reason && old.reason !== x.reason ? `, was ${old.reason}` : ''})`}`);
    if (old.weight !== x.weight) out.push(`backend ${key}: weight ${old.weight} -> ${x.weight}`);
    const added = x.endpoints.filter((e) => !old.endpoints.includes(e));
    const removed = old.endpoints.filter((e) => !x.endpoints.includes(e));
    if (added.length || removed.length)
      out.push(`backend ${key}: endpoints ${old.endpoints.length} -> ${x.endpoints.length}${added.length ? ` (+${added.slice(0, 5).join(', +')}${added.length > 5 ? ', ...' : ''})` : ''}${removed.length ? ` (-${removed.slice(0, 5).join(', -')}${removed.length > 5 ? ', ...' : ''})` : ''}`);
  }

  const ua = new Map(a.unattached.map((u) => [`${routeKey(u)} parentRef ${u.parentRefIndex}`, u]));
  const ub = new Map(b.unattached.map((u) => [`${routeKey(u)} parentRef ${u.parentRefIndex}`, u]));
  for (const [key, u] of ub) if (!ua.has(key) || ua.get(key)!.reason !== u.reason) out.push(`${routeKey(u)} not attached: ${u.reason}: ${u.message}`);
  for (const [key, u] of ua) if (!ub.has(key) && !rb.has(routeKey(u))) out.push(`${routeKey(u)} no longer names this Gateway`);

  const sa = new Map((prev.secrets ?? []).map((s) => [`${s.namespace}/${s.name}`, JSON.stringify(s.data ?? {})]));
  for (const s of next.secrets ?? []) {
    const key = `${s.namespace}/${s.name}`;
    if (!sa.has(key)) out.push(`Secret ${key} now used`);
    else if (sa.get(key) !== JSON.stringify(s.data ?? {})) out.push(`Secret ${key} data changed`);
  }

  if (out.length === 0) out.push('the compiled table changed (rule details: filters, matches, timeouts)');
  return out;
}
