// The conformance corpus ($CONFORMANCE_DIR, default test/corpora/conformance) as worlds and resolve
// requests: base.json + a case's manifests (placeholders substituted, defaults applied, each
// Service's `conformance/endpoints` annotation turned into an EndpointSlice of that many ready
// addresses), the case's steps applied in order, and every request of `expect.requests` checked
// against resolve() on the Gateway's compiled table.
import { worldOf } from '../../src/core/model/world';
import { conformanceDir } from '../support/corpora';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { translate } from '../../src/core/translate';
import type { CompiledTable } from '../../src/core/compile';
import type { World } from '../../src/core/model/world';
import { pickBackend, resolve, type ResolveResponse } from '../../src/core/resolve';
import { SUPPORTED_FEATURES } from '../../src/core/status/features';
import { AWAITING_DATA_PLANE } from '../support/conformance';
import { applyDefaults } from '../../src/core/validate';
import { X509Certificate } from 'node:crypto';

export const CONTROLLER = 'switchyard.dev/gateway-controller';
export const CLASS_NAME = 'conformance';
export const NOW = '2026-06-01T00:00:00.000Z';

export { conformanceDir };

const CLUSTER_KINDS = new Set(['GatewayClass', 'Namespace']);

function substitute<T>(value: T): T {
  const json = JSON.stringify(value)
    .replaceAll('{GATEWAY_CLASS_NAME}', CLASS_NAME)
    .replaceAll('{GATEWAY_CONTROLLER_NAME}', CONTROLLER);
  return JSON.parse(json);
}

const keyOf = (kind: string, ns: string | undefined, name: string) => `${kind}/${CLUSTER_KINDS.has(kind) ? '' : ns ?? ''}/${name}`;

/** Objects by key with Kubernetes write semantics that matter for routing (creation time, generation). */
export class ConformanceStore {
  private readonly objects = new Map<string, any>();
  private tick = 0;
  private readonly epoch = Date.parse('2026-01-01T00:00:00.000Z');

  apply(input: any): void {
    const obj = applyDefaults(substitute(structuredClone(input)));
    obj.metadata = { ...obj.metadata };
    if (CLUSTER_KINDS.has(obj.kind)) delete obj.metadata.namespace;
    if (obj.kind === 'Namespace') obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name };
    const k = keyOf(obj.kind, obj.metadata.namespace, obj.metadata.name);
    const cur = this.objects.get(k);
    // a replace keeps the creation time; a create gets the next one (writes one second apart, as upstream waits)
    obj.metadata.creationTimestamp = cur?.metadata.creationTimestamp ?? new Date(this.epoch + 1000 * this.tick++).toISOString();
    obj.metadata.generation = (cur?.metadata.generation ?? 0) + 1;
    this.objects.set(k, obj);
  }

  delete(ref: { kind: string; namespace?: string; name: string }): void {
    this.objects.delete(keyOf(ref.kind, ref.namespace, ref.name));
  }

  find(kind: string, namespace: string | undefined, name: string): any {
    return this.objects.get(keyOf(kind, namespace, name));
  }

  world(): World {
    const all = [...this.objects.values()];
    return worldOf([...all, ...all.filter((o) => o.kind === 'Service').flatMap(endpointSliceFor)]);
  }
}

function endpointSliceFor(svc: any): any[] {
  const n = Number(svc.metadata.annotations?.['conformance/endpoints']);
  if (!Number.isInteger(n) || n < 0) return [];
  return [{
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `${svc.metadata.name}-conformance`, namespace: svc.metadata.namespace, labels: { 'kubernetes.io/service-name': svc.metadata.name } },
    addressType: 'IPv4',
    ports: (svc.spec?.ports ?? []).map((p: any) => ({
      name: p.name ?? '', protocol: p.protocol ?? 'TCP', port: typeof p.targetPort === 'number' ? p.targetPort : p.port,
    })),
    endpoints: Array.from({ length: n }, (_, i) => ({ addresses: [`10.1.${i >> 8}.${(i & 255) + 1}`], conditions: { ready: true } })),
  }];
}

export interface RequestCase {
  caseName: string;
  where: string;
  gateway: { namespace: string; name: string };
  request: any;
  expect: any;
}

export interface CaseFile {
  name: string;
  features: string[];
  runCondition?: { skipIfSupported?: string[]; skipUnlessSupported?: string[] };
  manifests: any[];
  expect: { requests?: any[] };
  steps?: { description?: string; delete?: any[]; apply?: any[]; expect: { requests?: any[] } }[];
}

export function loadCases(dir = conformanceDir()): CaseFile[] {
  const casesDir = join(dir, 'cases');
  if (!existsSync(casesDir)) return [];
  return readdirSync(casesDir).filter((f) => f.endsWith('.json')).sort()
    .map((f) => JSON.parse(readFileSync(join(casesDir, f), 'utf8')) as CaseFile);
}

export function loadBase(dir = conformanceDir()): any[] {
  return JSON.parse(readFileSync(join(dir, 'base.json'), 'utf8'));
}

/** Why a case is skipped, or undefined when it runs. */
export function skipReason(c: CaseFile, supported: ReadonlySet<string> = new Set([...SUPPORTED_FEATURES, ...AWAITING_DATA_PLANE])): string | undefined {
  const missing = c.features.filter((f) => !supported.has(f));
  if (missing.length) return `unsupported feature${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`;
  const rc = c.runCondition;
  if (rc?.skipIfSupported?.some((f) => supported.has(f))) return `runCondition: passes trivially when ${rc.skipIfSupported.join('/')} is claimed`;
  if (rc?.skipUnlessSupported && !rc.skipUnlessSupported.every((f) => supported.has(f))) return `runCondition: needs ${rc.skipUnlessSupported.join(', ')}`;
  return undefined;
}

export interface Outcome {
  check: RequestCase;
  response?: ResolveResponse;
  failures: string[];
}

/** Entries that need real traffic (timeouts, retries, mirrors, mTLS, backend TLS): the proxy tests run them. */
export const needsDataPlane = (r: { dataPlane?: boolean }) => r.dataPlane === true;

/** Every request entry of a case, expect first, then each step in order. */
export function requestsOf(c: CaseFile): any[] {
  return [...(c.expect.requests ?? []), ...(c.steps ?? []).flatMap((s) => s.expect.requests ?? [])];
}

/**
 * Runs every request expectation of a case (expect, then each step) that a route table can answer,
 * returning one outcome per request; `dataPlane` entries are left out.
 */
export function runCase(c: CaseFile, base: any[]): Outcome[] {
  const store = new ConformanceStore();
  for (const o of base) store.apply(o);
  for (const o of c.manifests) store.apply(o);
  const out: Outcome[] = [];
  const phase = (where: string, requests: any[] | undefined) => {
    if (!requests?.length) return;
    const world = store.world();
    const tables = new Map<string, CompiledTable | undefined>();
    const tableFor = (gw: { namespace: string; name: string }) => {
      const k = `${gw.namespace}/${gw.name}`;
      if (!tables.has(k)) {
        const t = translate(world, gw, { controllerName: CONTROLLER, now: NOW });
        tables.set(k, t && { ...t.table, unattached: t.unattached });
      }
      return tables.get(k);
    };
    requests.forEach((r, i) => {
      if (needsDataPlane(r)) return;
      const check: RequestCase = { caseName: c.name, where: `${where} request ${i}`, gateway: r.gateway, request: r.request, expect: r.expect };
      const table = tableFor(r.gateway);
      if (!table) {
        out.push({ check, failures: [`Gateway ${r.gateway.namespace}/${r.gateway.name} is not ours or does not exist`] });
        return;
      }
      out.push(checkRequest(check, table, undefined, (k, ns, n) => store.find(k, ns, n)));
    });
  };
  phase('expect', c.expect.requests);
  (c.steps ?? []).forEach((s, i) => {
    for (const ref of s.delete ?? []) store.delete(ref);
    for (const o of s.apply ?? []) store.apply(o);
    phase(`step ${i}`, s.expect.requests);
  });
  return out;
}

export function toResolveRequest(r: any, expect: any): any {
  return {
    protocol: r.protocol,
    port: r.port,
    ...(r.host !== undefined ? { hostname: r.host } : {}),
    ...(r.sni !== undefined ? { sni: r.sni } : {}),
    ...(r.path !== undefined ? { path: r.path } : {}),
    ...(r.method !== undefined ? { method: r.method } : {}),
    ...(r.headers ? { headers: r.headers } : {}),
    ...(r.query ? { query: r.query } : {}),
    ...(r.rawQuery !== undefined ? { rawQuery: r.rawQuery } : {}),
    ...(expect?.backendResponseHeaders ? { backendResponseHeaders: expect.backendResponseHeaders } : {}),
  };
}

const lower = (h: Record<string, string> | undefined) =>
  Object.fromEntries(Object.entries(h ?? {}).map(([k, v]) => [k.toLowerCase(), v]));

/** The backends that carry traffic (weight > 0). */
function weighted(res: ResolveResponse) {
  return res.backends.map((b, i) => ({ b, i })).filter(({ b }) => b.weight > 0);
}

/** How a request is evaluated: by default resolve() on the table (the mesh evaluates a Service port). */
export type Evaluate = (request: any, context?: { random?: number }) => ResolveResponse;

/** Finds an object of the case's world (for certificates a `trustedCA` request needs). */
export type Finder = (kind: string, namespace: string | undefined, name: string) => any;

/**
 * upcoming/ `trustedCA`: a TLS handshake trusting only that certificate succeeds when the listener
 * that takes the connection terminates TLS with a certificate the anchor verifies (a passthrough
 * listener hands the handshake to its backend: it goes on, as resolve says).
 */
function handshakeTrusted(table: CompiledTable, res: ResolveResponse, trusted: any, find: Finder | undefined): boolean {
  const listener = table.listeners.find((l) => l.name === res.listener);
  if (!listener?.tls || listener.tls.mode !== 'Terminate' || !find) return true;
  const anchorObj = find(trusted.kind, trusted.namespace, trusted.name);
  const anchorPem = trusted.kind === 'Secret' ? anchorObj?.data?.['tls.crt'] && Buffer.from(anchorObj.data['tls.crt'], 'base64').toString() : anchorObj?.data?.['ca.crt'];
  if (!anchorPem) return false;
  const anchor = new X509Certificate(anchorPem);
  return listener.tls.certificateRefs.some((r) => {
    const s = find('Secret', r.namespace, r.name);
    const pem = s?.data?.['tls.crt'] && Buffer.from(s.data['tls.crt'], 'base64').toString();
    if (!pem) return false;
    const cert = new X509Certificate(pem);
    return cert.raw.equals(anchor.raw) || (cert.checkIssued(anchor) && cert.verify(anchor.publicKey));
  });
}

export function checkRequest(check: RequestCase, table: CompiledTable | undefined, evaluate: Evaluate = (r, ctx) => resolve(table!, r, ctx), find?: Finder): Outcome {
  const e = check.expect;
  const failures: string[] = [];
  const fail = (msg: string) => failures.push(msg);
  const resolved = evaluate(toResolveRequest(check.request, e));
  const res = check.request.trustedCA && table && !resolved.connectionRejected && !handshakeTrusted(table, resolved, check.request.trustedCA, find)
    ? { ...resolved, connectionRejected: true, explanation: [...resolved.explanation, 'the TLS handshake fails: the client does not trust the certificate the listener serves'] }
    : resolved;
  const proto = String(check.request.protocol);
  const stream = proto === 'tls' || proto === 'tcp' || proto === 'udp';

  if (e.connectionRejected) {
    if (!res.connectionRejected) fail(`expected the connection to be rejected, got ${summary(res)}`);
    return { check, response: res, failures };
  }
  if (res.connectionRejected) {
    fail(`connection rejected unexpectedly: ${res.explanation.join(' ')}`);
    return { check, response: res, failures };
  }
  // what the client observes
  const observed = res.forwarded ? 200 : res.statusCode;
  const wantCodes: number[] | undefined = e.statusCodes ?? (e.statusCode !== undefined ? [e.statusCode] : undefined);
  if (wantCodes && !wantCodes.includes(observed as number)) fail(`status ${observed} (want ${wantCodes.join('|')})`);
  // statusCodeNotIn: an answer arrives and is none of these (a route table answers what the gateway itself would)
  if (e.statusCodeNotIn && (e.statusCodeNotIn as number[]).includes(observed as number)) fail(`status ${observed} (want none of ${e.statusCodeNotIn.join('|')})`);
  if (e.grpcCodeNotIn && res.forwarded && (e.grpcCodeNotIn as string[]).includes('OK')) fail('gRPC call forwarded (want a failure)');
  const failureOnly = e.statusCodeNotIn !== undefined || e.grpcCodeNotIn !== undefined;
  if (!wantCodes && !failureOnly && !stream && e.grpcCode === undefined && !res.forwarded && !e.redirect) fail(`not forwarded (status ${res.statusCode}), expected a backend`);
  if (stream && (e.backend || e.distribution) && !res.forwarded) fail('connection not forwarded');
  if (e.grpcCode === 'OK' && !res.forwarded) fail(`gRPC call not forwarded (status ${res.statusCode})`);
  if (e.grpcCode === 'Unimplemented' && res.grpcStatus !== 'Unimplemented') fail(`grpcStatus ${res.grpcStatus ?? 'absent'} (want Unimplemented)`);
  if (e.notForwardedToBackend && [200, 204].includes(observed as number) && res.forwarded) fail('preflight was forwarded to the backend');

  if (e.backend && res.forwarded) {
    const ws = weighted(res);
    const chosen = res.chosenBackend !== undefined ? [res.backends[res.chosenBackend]] : ws.map((x) => x.b);
    const names = new Set(chosen.map((b) => `${b.namespace}/${b.name}${e.backend.port !== undefined ? `:${b.port}` : ''}`));
    const want = `${e.backend.namespace}/${e.backend.name}${e.backend.port !== undefined ? `:${e.backend.port}` : ''}`;
    if (names.size !== 1 || !names.has(want)) fail(`backend ${[...names].join(' or ') || 'none'} (want ${want})`);
    if (chosen.some((b) => !b.valid)) fail('the backend is not valid');
  }
  if (e.backendOneOf) {
    const ws = weighted(res);
    const listed = new Set(e.backendOneOf.map((b: any) => `${b.namespace}/${b.name}`));
    for (const { b } of ws) if (!listed.has(`${b.namespace}/${b.name}`)) fail(`backend ${b.namespace}/${b.name} is not one of ${[...listed].join(', ')}`);
    for (const want of e.backendOneOf) {
      const hit = ws.find(({ b }) => b.namespace === want.namespace && b.name === want.name);
      if (!hit) { fail(`backend ${want.namespace}/${want.name} never chosen`); continue; }
      const got = hit.b.requestHeaders ?? res.requestHeaders ?? {};
      for (const [k, v] of Object.entries(lower(want.requestHeaders))) if (got[k] !== v) fail(`via ${want.name}: request header ${k}=${got[k]} (want ${v})`);
    }
  }
  if (e.distribution) {
    const ns = e.distributionNamespace;
    const tol = e.distributionTolerance ?? 0.05;
    const total = res.backends.reduce((n, b) => n + Math.max(0, b.weight), 0);
    const byName = new Map<string, number>();
    for (const b of res.backends) if (b.namespace === ns && b.valid) byName.set(b.name!, (byName.get(b.name!) ?? 0) + b.weight / total);
    // the shares by the table's weights, and as a proxy picking by weight would observe them
    const N = 1000;
    const picked = new Map<string, number>();
    for (let i = 0; i < N; i++) {
      const r = evaluate(toResolveRequest(check.request, e), { random: (i + 0.5) / N });
      const b = r.chosenBackend !== undefined ? r.backends[r.chosenBackend] : undefined;
      if (b && r.forwarded) picked.set(b.name!, (picked.get(b.name!) ?? 0) + 1 / N);
    }
    for (const [name, share] of Object.entries(e.distribution as Record<string, number>)) {
      const got = byName.get(name) ?? 0;
      if (Math.abs(got - share) > tol) fail(`share of ${name} by weight ${got.toFixed(3)} (want ${share} ± ${tol})`);
      const seen = picked.get(name) ?? 0;
      if (Math.abs(seen - share) > tol || (share === 0 && seen > 0)) fail(`observed share of ${name} ${seen.toFixed(3)} (want ${share} ± ${tol})`);
    }
  }
  if (e.rewrittenPath !== undefined) {
    const got = res.rewrite?.path ?? check.request.path;
    if (got !== e.rewrittenPath) fail(`backend path ${got} (want ${e.rewrittenPath})`);
  }
  if (e.rewrittenHost !== undefined) {
    const got = res.rewrite?.hostname ?? check.request.host;
    if (got !== e.rewrittenHost) fail(`backend Host ${got} (want ${e.rewrittenHost})`);
  }
  const reqH = res.requestHeaders ?? {};
  for (const [k, v] of Object.entries(lower(e.requestHeaders))) if (reqH[k] !== v) fail(`request header ${k}=${reqH[k]} (want ${v})`);
  for (const k of e.absentRequestHeaders ?? []) if (k.toLowerCase() in reqH) fail(`request header ${k} present`);
  const ws = (s: string) => (e.ignoreWhitespaceInResponseHeaders ? s.replace(/\s+/g, '') : s);
  const respH = lower(res.responseHeaders);
  for (const [k, v] of Object.entries(lower(e.responseHeaders))) {
    if (respH[k] === undefined || ws(respH[k]) !== ws(v as string)) fail(`response header ${k}=${respH[k]} (want ${v})`);
  }
  for (const [k, vs] of Object.entries(lower(e.responseHeadersOneOf as any))) {
    const got = respH[k];
    if (got === undefined || !(vs as unknown as string[]).map(ws).includes(ws(got))) fail(`response header ${k}=${got} (want one of ${(vs as unknown as string[]).join(' | ')})`);
  }
  for (const k of e.absentResponseHeaders ?? []) if (k.toLowerCase() in respH) fail(`response header ${k} present`);
  if (e.redirect) {
    const r = res.redirect;
    if (!r) fail('no redirect');
    else {
      if (r.scheme !== e.redirect.scheme) fail(`redirect scheme ${r.scheme} (want ${e.redirect.scheme})`);
      if (r.path !== e.redirect.path) fail(`redirect path ${r.path} (want ${e.redirect.path})`);
      if (e.redirect.host !== undefined && r.hostname !== e.redirect.host) fail(`redirect host ${r.hostname} (want ${e.redirect.host})`);
      const defaultPort = r.scheme === 'https' ? 443 : 80;
      if (e.redirect.port !== undefined) {
        if (String(r.port) !== String(e.redirect.port)) fail(`redirect port ${r.port} (want ${e.redirect.port})`);
      } else if (r.port !== undefined && r.port !== defaultPort) fail(`redirect port ${r.port} (want none)`);
    }
  }
  return { check, response: res, failures };
}

function summary(res: ResolveResponse): string {
  return `matched=${res.matched} forwarded=${res.forwarded} status=${res.statusCode ?? '-'} route=${res.route?.name ?? '-'}`;
}

export { pickBackend };
