// Every request expectation of the conformance corpus (test/corpora/conformance, not mesh/) sent as
// real traffic through nginx programmed by `switchyard nginx`, as test/e2e/conformance-proxy.test.ts
// sends it through the reference proxy (the same harness: test/support/conformance-traffic.ts and
// the same fleet of echo pods). Each Gateway a request names gets an agent of its own, which runs
// its own nginx under a temporary prefix, with its own port offset. The counts are printed, with
// every request nginx did not honour and why, and what the renderer says nginx cannot honour.
// Skips, saying why, without PostgreSQL, Redis or nginx with its njs and stream modules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID, createHash, X509Certificate } from 'node:crypto';
import { freshDatabaseUrl, needs } from '../support/database';
import { ADMIN_TOKEN, client, type Client } from '../support/server';
import { startProcess, startWorkerProcess, type ServiceProcess, type WorkerProcess } from '../support/process';
import { startNginxAgentProcess, type NginxAgentProcess } from '../support/nginx-process';
import { NGINX } from '../support/nginx';
import { CONFORMANCE_ADDRESS_POOL, loadCorpus, refKey, type ObjectRef } from '../support/conformance';
import { kindInfo } from '../../src/core/model/kinds';
import type { K8sObject } from '../../src/core/model/objects';
import { openDatabase, type Database } from '../../src/adapters/store/database';
import { caughtUp } from '../../src/adapters/store/checkpoints';
import { Fleet } from '../support/conformance-fleet';
import { dropRedisPrefix } from '../support/redis';
import { certificateRequested, checkObserved, HAS_OPENSSL, pathOf, send, type Observed } from '../support/conformance-traffic';

const needDb = needs({ pg: true, redis: true });
const need = needDb.skip ? needDb : NGINX.available ? needDb : { skip: true, why: NGINX.why };
const CONTROLLER = 'switchyard.dev/gateway-controller';
const corpus = loadCorpus({ controllerName: CONTROLLER });
const RECONCILE_TIMEOUT_MS = 45_000;

/**
 * What the proxy cannot do yet, or this machine cannot observe, by request entry: the first that
 * applies is the entry's skip reason. Each goes once it can be run (and the corpus run shows it passes).
 */
const PROXY_GAPS: { why: string; applies: (r: any, e: any) => boolean }[] = [
  { why: 'needs the openssl command, to see the CertificateRequest', applies: (_r, e) => e.clientCertificateRequested !== undefined && !HAS_OPENSSL },
];

type Entry = { gateway: { namespace: string; name: string }; dataPlane?: boolean; request: any; expect: any };

class Counts {
  /** entries of cases whose features the GatewayClass does not all claim, passed and failed */
  unclaimed = { passed: 0, failed: 0, features: new Set<string>() };
  passed = 0;
  failed: string[] = [];
  skipped = new Map<string, number>();
  dataPlane = { passed: 0, failed: 0, skipped: 0 };
  skip(why: string, n = 1, dp = 0): void {
    this.skipped.set(why, (this.skipped.get(why) ?? 0) + n);
    this.dataPlane.skipped += dp;
  }
  line(total: number, dataPlaneTotal: number): string {
    const skipped = [...this.skipped].reduce((n, [, k]) => n + k, 0);
    return `conformance requests through nginx: ${this.passed} passed, ${this.failed.length} failed, ${skipped} skipped, of ${total}`
      + ` (dataPlane: ${this.dataPlane.passed} passed, ${this.dataPlane.failed} failed, ${this.dataPlane.skipped} skipped, of ${dataPlaneTotal})`
      + `\n  of these, in cases of features the GatewayClass does not claim (${[...this.unclaimed.features].sort().join(', ') || 'none'}): ${this.unclaimed.passed} passed, ${this.unclaimed.failed} failed`
      + `\n  skipped by reason:${[...this.skipped].map(([why, n]) => `\n    ${n}: ${why}`).join('') || ' none'}`;
  }
}

const requestsOf = (c: any): Entry[] => [...(c.expect?.requests ?? []), ...(c.steps ?? []).flatMap((s: any) => s.expect?.requests ?? [])];
const ALL = corpus.cases.flatMap(requestsOf);
const counts = new Counts();

/**
 * Cases with requests nginx 1.22 cannot answer as resolve does, each with the reason. Their requests
 * still count as failed in the printed count; every other case must pass whole.
 */
const NGINX_KNOWN: Record<string, string> = {
  BackendTLSPolicySANValidation: "nginx verifies a backend's certificate against the name it sends (proxy_ssl_name), not against the policy's subjectAltNames",
  GatewayFrontendClientCertificateValidation: 'nginx completes the handshake with an invalid client certificate and answers 400, where the connection must be refused',
  HTTPRouteRetryWithTimeouts: 'nginx has no whole-request timeout: the backend timeout bounds each attempt, so a retry can outlive the request timeout',
};

describe.skipIf(need.skip)(`the conformance corpus through nginx programmed by switchyard nginx${need.skip ? ` (skipped: ${need.why})` : ''}`, () => {
  let db: Awaited<ReturnType<typeof freshDatabaseUrl>>;
  let store: Database;
  let api: ServiceProcess;
  let worker: WorkerProcess;
  let call: Client;
  let proxyToken = '';
  let claimed = new Set<string>();
  const fleet = new Fleet();
  const base = new Map<string, K8sObject>();
  /** one proxy per Gateway: "ns/name" -> its process and port offset */
  const proxies = new Map<string, { proc: NginxAgentProcess; offset: number; base: boolean }>();
  /** what the renderer said nginx cannot honour, by Gateway */
  const gaps = new Set<string>();
  const usedLocalPorts = new Set<number>();
  /** the listener ports of every Gateway the corpus defines, for choosing offsets */
  const gatewayPorts = new Map<string, number[]>();

  const pathOfRef = (r: ObjectRef): string => {
    const info = kindInfo(r.kind);
    if (!info) throw new Error(`the corpus names a kind the API does not serve: ${r.kind}`);
    const name = encodeURIComponent(r.name);
    return info.scope === 'Cluster' ? `/api/v1/${info.plural}/${name}` : `/api/v1/namespaces/${encodeURIComponent(r.namespace ?? '')}/${info.plural}/${name}`;
  };
  const refOf = (o: K8sObject): ObjectRef => ({ kind: o.kind, namespace: kindInfo(o.kind)?.scope === 'Cluster' ? undefined : o.metadata.namespace, name: o.metadata.name });

  async function put(o: K8sObject): Promise<void> {
    const { creationTimestamp: _c, generation: _g, resourceVersion: _r, uid: _u, ...metadata } = o.metadata as any;
    const r = await call('PUT', pathOfRef(refOf(o)), { ...o, metadata });
    if (r.status !== 200 && r.status !== 201) throw new Error(`PUT ${pathOfRef(refOf(o))}: ${r.status} ${r.text}`);
  }
  async function del(r: ObjectRef): Promise<void> {
    const res = await call('DELETE', pathOfRef(r));
    if (res.status !== 200 && res.status !== 404) throw new Error(`DELETE ${pathOfRef(r)}: ${res.status} ${res.text}`);
  }

  /** Writes an object; a Service also gets its pods and their EndpointSlices. */
  async function apply(o: K8sObject, touched?: Map<string, ObjectRef>): Promise<void> {
    fleet.remember(o);
    const all = [o, ...(o.kind === 'Service' ? await fleet.service(o) : [])];
    for (const x of all) {
      touched?.set(refKey(refOf(x)), refOf(x));
      await put(x);
    }
  }

  async function reconcile(): Promise<void> {
    const [{ p }] = await store.sql.$queryRawUnsafe<{ p: bigint | null }[]>('SELECT max(position) AS p FROM events');
    const deadline = Date.now() + RECONCILE_TIMEOUT_MS;
    while (!(await caughtUp(store, Number(p ?? 0), CONTROLLER))) {
      if (Date.now() > deadline) throw new Error(`the worker did not catch up with position ${p} within ${RECONCILE_TIMEOUT_MS} ms\n${worker.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  function offsetFor(gw: string): number {
    const ports = gatewayPorts.get(gw) ?? [80, 443];
    for (;;) {
      // below the ephemeral range (32768 on Linux), where the pods' and everyone's outgoing ports are
      const offset = 20000 + Math.floor(Math.random() * (32768 - 20000 - Math.max(...ports)));
      if (ports.every((p) => !usedLocalPorts.has(p + offset))) {
        for (const p of ports) usedLocalPorts.add(p + offset);
        return offset;
      }
    }
  }

  async function proxyFor(gw: string, isBase: boolean) {
    let p = proxies.get(gw);
    if (!p) {
      const offset = offsetFor(gw);
      const proc = await startNginxAgentProcess(api.url, proxyToken, ['--gateway', gw, '--port-offset', String(offset), '--id', `corpus-nginx-${gw.replace('/', '-')}`]);
      proxies.set(gw, (p = { proc, offset, base: isBase }));
    }
    return p;
  }

  async function stopProxy(gw: string): Promise<void> {
    const p = proxies.get(gw);
    if (!p) return;
    proxies.delete(gw);
    for (const m of p.proc.output().matchAll(/"gaps":(\[[^\]]*\])/g)) for (const g of JSON.parse(m[1]) as string[]) gaps.add(g);
    await p.proc.stop('SIGTERM');
    for (const port of gatewayPorts.get(gw) ?? []) usedLocalPorts.delete(port + p.offset);
  }

  /** Waits until the Gateway's proxy serves the snapshot the API has now; a port taken by another process gets the proxy another offset. */
  async function synced(gw: string, isBase: boolean): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await syncedOnce(gw);
      } catch (e) {
        if (attempt >= 3 || !/EADDRINUSE|Address already in use/.test((e as Error).message)) throw e;
        await stopProxy(gw);
        await proxyFor(gw, isBase);
      }
    }
  }

  async function syncedOnce(gw: string): Promise<void> {
    const [ns, name] = gw.split('/');
    const p = proxies.get(gw)!;
    const deadline = Date.now() + 20_000;
    let seen: unknown;
    for (;;) {
      const snap = await call('GET', `/api/v1/namespaces/${ns}/gateways/${name}/snapshot`);
      const want = snap.status === 200 ? snap.body.version : null;
      const ready = await (await fetch(`${p.proc.admin}/readyz`)).json() as any;
      seen = ready.gateways?.[0];
      if (ready.gateways?.[0]?.version === want && (want === null || ready.gateways[0].rejectedVersion !== want)) return;
      if (ready.gateways?.[0]?.rejectedVersion === want && want !== null) throw new Error(`the proxy of ${gw} rejected version ${want}: ${ready.gateways[0].error}`);
      if (Date.now() > deadline) throw new Error(`the proxy of ${gw} did not reach version ${want}: ${JSON.stringify(seen)}\n${p.proc.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  const redisPrefix = `sy-corpus-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    db = await freshDatabaseUrl();
    const env = {
      DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL, REDIS_PREFIX: redisPrefix, ADMIN_TOKEN,
      CONTROLLER_NAME: CONTROLLER, SWITCHYARD_ADDRESS_POOL: CONFORMANCE_ADDRESS_POOL.join(','), SWITCHYARD_DEFAULT_GATEWAYCLASS: 'false',
      RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000', ACCESS_LOG: 'errors',
    };
    [api, worker] = await Promise.all([startProcess(env, 'src/main.ts', ['--role=api']), startWorkerProcess(env)]);
    store = await openDatabase({ url: db.url, poolSize: 2 });
    call = client(api.url, ADMIN_TOKEN);
    for (const c of [{ manifests: corpus.base(), steps: [] }, ...corpus.cases]) {
      for (const o of [...(c.manifests ?? []), ...(c.steps ?? []).flatMap((s: any) => s.apply ?? [])]) {
        if (o.kind === 'Gateway') gatewayPorts.set(`${o.metadata.namespace}/${o.metadata.name}`, [...new Set([...(gatewayPorts.get(`${o.metadata.namespace}/${o.metadata.name}`) ?? []), ...(o.spec?.listeners ?? []).map((l: any) => l.port)])]);
      }
    }
    // the pods' certificates: Services come before Secrets in base.json
    for (const o of corpus.base()) fleet.remember(o);
    for (const o of corpus.base()) {
      base.set(refKey(refOf(o)), o);
      await apply(o);
      for (const s of o.kind === 'Service' ? await fleet.service(o) : []) base.set(refKey(refOf(s)), s);
    }
    await reconcile();
    const gc = (await call('GET', '/api/v1/gatewayclasses/switchyard')).body;
    claimed = new Set((gc?.status?.supportedFeatures ?? []).map((f: any) => f.name));
    const gateways = [...new Set(ALL.map((e) => `${e.gateway.namespace}/${e.gateway.name}`))];
    const t = await call('POST', '/api/v1/tokens', { name: 'corpus-proxies', role: 'proxy', gateways });
    if (t.status !== 201) throw new Error(`minting the proxy token: ${t.status} ${t.text}`);
    proxyToken = t.body.token;
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...proxies.keys()].map(stopProxy));
    console.log(counts.line(ALL.length, ALL.filter((e) => e.dataPlane).length));
    console.log(`requests nginx did not honour (${counts.failed.length}):${counts.failed.map((f) => `\n  ${f}`).join('') || ' none'}`);
    console.log(`what the renderer says nginx cannot honour exactly (${gaps.size}):${[...gaps].sort().map((g) => `\n  ${g}`).join('') || ' none'}`);
    await fleet.close();
    await store?.close?.();
    await Promise.all([api?.stop(), worker?.stop()]);
    await db?.drop();
    if (process.env.REDIS_URL) await dropRedisPrefix(process.env.REDIS_URL, redisPrefix).catch(() => undefined);
  });

  /** The TLS material a backendBehaviour names, put on every pod that serves 8443. */
  function behave(r: any): void {
    const b = r.backendBehaviour;
    if (!b?.tlsServerCertificate) return;
    const pair = fleet.keyPair(`${b.tlsServerCertificate.namespace}/${b.tlsServerCertificate.name}`);
    const ca = b.tlsClientCA ? fleet.caBundle(`${b.tlsClientCA.namespace}/${b.tlsClientCA.name}`) : undefined;
    if (!pair) return;
    for (const pod of fleet.allPods()) if (pod.ports.has(8443)) pod.tls = { ...pair, ...(ca ? { clientCA: ca } : {}) };
  }

  const idsIn = (ns: string, name: string, id: string) => fleet.logOf(ns, name).filter((l) => l.headers['x-request-id'] === id).length;

  async function once(entry: Entry, localPort: number): Promise<{ o: Observed; failures: string[]; id: string; unique: string }> {
    const id = randomUUID();
    const unique = randomUUID();
    const r = entry.request;
    const e = entry.expect;
    const certRef = r.clientCertificate ? `${r.clientCertificate.namespace}/${r.clientCertificate.name}` : undefined;
    const o = await send(r, e, { localPort, requestId: id, ...(certRef && fleet.keyPair(certRef) ? { clientCertificate: fleet.keyPair(certRef)! } : {}) }, unique);
    const failures = checkObserved(r, e, o, { path: pathOf(r, unique) });
    if (e.notForwardedToBackend && (o.status === 200 || o.status === 204) && fleet.allPods().some((p) => p.log.some((l) => l.headers['x-request-id'] === id))) failures.push('the preflight reached a backend');
    if (e.backendTLS && o.echo) {
      if (!o.echo.tls) failures.push('the backend was not reached over TLS');
      else {
        if (e.backendTLS.sni !== undefined && o.echo.tls.sni !== e.backendTLS.sni) failures.push(`backend SNI ${o.echo.tls.sni || '(none)'} (want ${e.backendTLS.sni})`);
        const want = e.backendTLS.clientCertificate && fleet.keyPair(`${e.backendTLS.clientCertificate.namespace}/${e.backendTLS.clientCertificate.name}`);
        if (want && o.echo.tls.clientCertificate !== createHash('sha256').update(new X509Certificate(want.cert).raw).digest('hex')) failures.push('the backend did not get the client certificate');
      }
    }
    if (e.clientCertificateRequested && !(await certificateRequested(localPort, r.sni))) failures.push('the gateway did not ask for a client certificate');
    if (e.attemptsAtBackend !== undefined) {
      const n = fleet.allPods().flatMap((p) => p.log).filter((l) => l.path.includes(`uuid=${unique}`)).length;
      const a = e.attemptsAtBackend;
      if (typeof a === 'number' ? n !== a : (a.min !== undefined && n < a.min) || (a.max !== undefined && n > a.max)) failures.push(`${n} attempts at the backend (want ${JSON.stringify(a)})`);
    }
    for (const m of e.mirroredTo ?? []) {
      if (m.share !== undefined) continue;
      const deadline = Date.now() + 3000;
      while (idsIn(m.namespace, m.name, id) === 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
      if (idsIn(m.namespace, m.name, id) === 0) failures.push(`no mirrored copy reached ${m.namespace}/${m.name}`);
    }
    return { o, failures, id, unique };
  }

  /** Requests in parallel batches of 8. */
  async function many(n: number, fn: () => Promise<void>): Promise<void> {
    let left = n;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (left-- > 0) await fn();
    }));
  }

  async function runEntry(entry: Entry): Promise<string[]> {
    const gw = `${entry.gateway.namespace}/${entry.gateway.name}`;
    const p = proxies.get(gw)!;
    const r = entry.request;
    const e = entry.expect;
    const localPort = (r.port ?? (r.protocol === 'https' ? 443 : 80)) + p.offset;
    behave(r);
    if (e.distribution) {
      // upstream: 500 requests, each share within the tolerance, a weight-0 backend never; batches retried
      let last: string[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const seen = new Map<string, number>();
        const problems: string[] = [];
        const N = 500;
        await many(N, async () => {
          const { o, failures } = await once(entry, localPort);
          if (failures.length) problems.push(failures.join('; '));
          const k = o.echo && o.echo.namespace === e.distributionNamespace ? o.echo.service : `other (${o.status ?? o.rejected})`;
          seen.set(k, (seen.get(k) ?? 0) + 1);
        });
        last = problems.length ? [`${problems.length} of ${N} requests failed, e.g. ${problems[0]}`] : [];
        const tol = e.distributionTolerance ?? 0.05;
        for (const [name, share] of Object.entries(e.distribution as Record<string, number>)) {
          const got = (seen.get(name) ?? 0) / N;
          if (Math.abs(got - share) > tol || (share === 0 && got > 0)) last.push(`share of ${name} ${got.toFixed(3)} (want ${share} ± ${tol})`);
        }
        for (const k of seen.keys()) if (!(k in e.distribution)) last.push(`${seen.get(k)} requests went to ${k}`);
        if (last.length === 0) return [];
      }
      return last;
    }
    if (e.backendOneOf) {
      const problems: string[] = [];
      await many(20, async () => {
        const { o, failures } = await once(entry, localPort);
        problems.push(...failures);
        const hit = e.backendOneOf.find((b: any) => o.echo && b.namespace === o.echo.namespace && b.name === o.echo.service);
        if (!hit) return void problems.push(`served by ${o.echo ? `${o.echo.namespace}/${o.echo.service}` : o.status}, not one of the listed backends`);
        for (const [k, v] of Object.entries(hit.requestHeaders ?? {})) if (o.echo!.headers[k.toLowerCase()] !== v) problems.push(`via ${hit.name}: request header ${k}=${o.echo!.headers[k.toLowerCase()]} (want ${v})`);
      });
      return [...new Set(problems)];
    }
    const shares = (e.mirroredTo ?? []).filter((m: any) => m.share !== undefined);
    if (shares.length) {
      const out: string[] = [];
      for (const m of shares) {
        let ok = false;
        let last = '';
        for (let attempt = 0; attempt < (m.attempts ?? 1) && !ok; attempt++) {
          const ids: string[] = [];
          const problems: string[] = [];
          await many(m.sampleRequests ?? 500, async () => {
            const x = await once(entry, localPort);
            ids.push(x.id);
            problems.push(...x.failures);
          });
          await new Promise((res) => setTimeout(res, 300));
          const mirrored = new Set(fleet.logOf(m.namespace, m.name).map((l) => l.headers['x-request-id']));
          const share = ids.filter((i) => mirrored.has(i)).length / ids.length;
          ok = problems.length === 0 && Math.abs(share - m.share) <= (m.shareTolerance ?? 0.05);
          last = problems.length ? `${problems.length} requests failed, e.g. ${problems[0]}` : `mirrored share ${share.toFixed(3)} to ${m.name} (want ${m.share} ± ${m.shareTolerance})`;
        }
        if (!ok) out.push(last);
      }
      return out;
    }
    // upstream polls until the answer holds; a table just swapped in may still be on its way
    let failures: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      failures = (await once(entry, localPort)).failures;
      if (failures.length === 0) return [];
      await new Promise((res) => setTimeout(res, 200));
    }
    return failures;
  }

  /**
   * Why a case does not run. Unlike upstream, a case of a feature the GatewayClass does not claim
   * runs too (the claim waits for the data plane; this run is how the proxy shows it can): it is
   * counted apart. CONFORMANCE_CLAIMED_ONLY=1 skips those cases, as upstream does.
   */
  function caseSkip(c: any): string | undefined {
    const unserved = [...new Set([...(c.manifests ?? []), ...(c.steps ?? []).flatMap((s: any) => s.apply ?? [])].map((o: any) => o.kind).filter((k: string) => !kindInfo(k)))];
    if (unserved.length) return `the API does not serve ${unserved.join(', ')}`;
    const missing = (c.features ?? []).filter((f: string) => !claimed.has(f) && process.env.CONFORMANCE_CLAIMED_ONLY === '1');
    if (missing.length) return `the GatewayClass does not claim ${missing.join(', ')}`;
    const rc = c.runCondition;
    if (rc?.skipIfSupported?.some((f: string) => claimed.has(f))) return `runCondition: passes trivially when ${rc.skipIfSupported.join('/')} is claimed`;
    if (rc?.skipUnlessSupported && !rc.skipUnlessSupported.every((f: string) => claimed.has(f))) return `runCondition: needs ${rc.skipUnlessSupported.join(', ')}`;
    return undefined;
  }

  it('finds the corpus: 465 request expectations, 58 of them dataPlane', () => {
    expect(ALL.length).toBe(465);
    expect(ALL.filter((e) => e.dataPlane).length).toBe(58);
  });

  for (const c of corpus.cases) {
    const entries = requestsOf(c);
    if (entries.length === 0) continue;
    it(c.name, async (ctx) => {
      const why = caseSkip(c);
      if (why) {
        counts.skip(why, entries.length, entries.filter((x) => x.dataPlane).length);
        return ctx.skip(why);
      }
      const unclaimed: string[] = (c.features ?? []).filter((f: string) => !claimed.has(f));
      const touched = new Map<string, ObjectRef>();
      const caseGateways = new Set<string>();
      const failures: string[] = [];
      const phase = async (where: string, list: Entry[] | undefined) => {
        const run: Entry[] = [];
        for (const entry of list ?? []) {
          const gap = PROXY_GAPS.find((g) => g.applies(entry.request, entry.expect));
          if (gap) counts.skip(gap.why, 1, entry.dataPlane ? 1 : 0);
          else run.push(entry);
        }
        if (run.length === 0) return;
        await reconcile();
        for (const gw of new Set(run.map((x) => `${x.gateway.namespace}/${x.gateway.name}`))) {
          const isBase = base.has(refKey({ kind: 'Gateway', namespace: gw.split('/')[0], name: gw.split('/')[1] }));
          if (!isBase) caseGateways.add(gw);
          await proxyFor(gw, isBase);
          await synced(gw, isBase);
        }
        for (const [i, entry] of run.entries()) {
          const got = await runEntry(entry);
          if (unclaimed.length) {
            if (got.length === 0) counts.unclaimed.passed++;
            else counts.unclaimed.failed++;
            for (const f of unclaimed) counts.unclaimed.features.add(f);
          }
          if (got.length === 0) {
            counts.passed++;
            if (entry.dataPlane) counts.dataPlane.passed++;
          } else {
            const line = `${c.name} ${where} request ${i} ${JSON.stringify(entry.request)}: ${got.join('; ')}`;
            counts.failed.push(line);
            if (entry.dataPlane) counts.dataPlane.failed++;
            failures.push(line);
          }
        }
      };
      try {
        for (const o of c.manifests ?? []) fleet.remember(o);
        for (const o of c.manifests ?? []) await apply(o, touched);
        await phase('expect', c.expect?.requests);
        for (const [si, s] of (c.steps ?? []).entries()) {
          for (const ref of s.delete ?? []) {
            const r = { kind: ref.kind, namespace: kindInfo(ref.kind)?.scope === 'Cluster' ? undefined : ref.namespace, name: ref.name };
            touched.set(refKey(r), r);
            await del(r);
          }
          for (const o of s.apply ?? []) await apply(o, touched);
          await phase(`step ${si + 1}`, s.expect?.requests);
        }
      } finally {
        for (const [k, ref] of [...touched].reverse()) {
          const original = base.get(k);
          // a base Service written back writes its pods' EndpointSlices itself
          if (original?.kind === 'EndpointSlice') continue;
          if (original) await apply(original);
          else {
            await del(ref);
            if (ref.kind === 'Service' && !base.has(k)) await fleet.drop(`${ref.namespace}/${ref.name}`);
          }
        }
        await Promise.all([...caseGateways].map(stopProxy));
      }
      const known = NGINX_KNOWN[c.name];
      if (!known) expect(failures).toEqual([]);
      else {
        console.log(`nginx cannot honour ${c.name} (${failures.length} request(s)): ${known}`);
        // a gap that closes is taken off the list, so that the list only ever says what is true
        expect(failures.length, `${c.name} now passes through nginx: take it off NGINX_KNOWN`).toBeGreaterThan(0);
      }
    }, 120_000);
  }

  it('prints the counts, and runs at least the entries it ran before', () => {
    console.log(counts.line(ALL.length, ALL.filter((e) => e.dataPlane).length));
    expect(counts.passed + counts.failed.length + [...counts.skipped.values()].reduce((a, b) => a + b, 0)).toBe(ALL.length);
    expect(counts.passed).toBeGreaterThan(0);
  });
});
