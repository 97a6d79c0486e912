// Every request expectation of the conformance corpus (test/corpora/conformance, not mesh/; or its
// upcoming/ cases) sent as real traffic through a data plane: the reference proxy
// (test/e2e/conformance-proxy.test.ts) or nginx programmed by `switchyard nginx`
// (test/e2e/conformance-nginx.test.ts), both through this one runner. The API and the worker run as
// their own processes on the real PostgreSQL and Redis; each Gateway a request names gets a data
// plane process of its own (Gateways share listener ports, as on separate addresses), with its own
// port offset; every Service's pods are echo servers on loopback (test/support/conformance-fleet.ts)
// that EndpointSlices point at. base.json is written once; each case's manifests and steps go
// through the API, its objects are undone after it. Weighted entries are checked statistically as
// upstream does (500 requests, each share within the tolerance, a weight-0 backend never chosen). An
// entry the data plane cannot run yet is skipped with the reason, and the counts are printed: passed
// / failed / skipped by reason. Cases of features the GatewayClass does not claim run as well
// (counted apart; CONFORMANCE_CLAIMED_ONLY=1 skips them). TEST_PORT_RANGE=LO-HI keeps the listener
// ports (port + offset) in that range where a Gateway's ports fit in it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID, createHash, X509Certificate } from 'node:crypto';
import { freshDatabaseUrl, needs } from './database';
import { ADMIN_TOKEN, client, type Client } from './server';
import { startProcess, startWorkerProcess, type ServiceProcess, type WorkerProcess } from './process';
import { CONFORMANCE_ADDRESS_POOL, loadCorpus, refKey, type ObjectRef } from './conformance';
import { testPortRange } from './ports';
import { kindInfo } from '../../src/core/model/kinds';
import { join } from 'node:path';
import tls from 'node:tls';
import net from 'node:net';
import { startEchoPod, type EchoPod } from './echo-pod';
import type { K8sObject } from '../../src/core/model/objects';
import { openDatabase, type Database } from '../../src/adapters/store/database';
import { caughtUp } from '../../src/adapters/store/checkpoints';
import { Fleet } from './conformance-fleet';
import { conformanceDecision, startGRPCAuthServer, startHTTPAuthServer, type AuthServer } from './auth-servers';
import { dropRedisPrefix } from './redis';
import { certificateRequested, checkObserved, HAS_OPENSSL, pathOf, send, type Observed } from './conformance-traffic';

const CONTROLLER = 'switchyard.dev/gateway-controller';
const RECONCILE_TIMEOUT_MS = 45_000;

/** A data plane process serving one Gateway. */
export interface PlaneProcess {
  admin: string;
  output(): string;
  stop(): Promise<unknown>;
}

/** What the runner needs of a data plane. */
export interface DataPlane {
  /** in test titles: "the reference proxy", "nginx programmed by switchyard nginx" */
  title: string;
  /** in the count line: "the proxy", "nginx" */
  short: string;
  /** set when the data plane cannot run on this machine */
  unavailable?: string;
  start(apiUrl: string, token: string, gateway: string, offset: number): Promise<PlaneProcess>;
  /** what its start says when a listener port is taken (the Gateway is tried on another offset) */
  addressInUse: RegExp;
  /** after a process stops: what it said it cannot honour, gathered for the report */
  gapsOf?(output: string): string[];
}

export interface RunnerOptions {
  plane: DataPlane;
  /** the upcoming cases (open upstream pull requests, the corpus's upcoming/ folder), on base.json plus upcoming/base.json */
  upcoming?: boolean;
  /** only these cases (by name) */
  only?: (c: any) => boolean;
  /** the request expectations (and of them dataPlane ones) the selected cases hold */
  expectCounts: { requests: number; dataPlane: number };
  /**
   * Cases the data plane cannot honour, each with the reason: their requests count as failed in the
   * printed count, every other case must pass whole, and one of these that passes fails the test
   * (so that the list only ever says what is true).
   */
  known?: Record<string, string>;
  /** more tests at the end of the describe block, with the Gateways' data plane processes at hand */
  more?: (h: { planes: () => Map<string, PlaneProcess>; corpus: { cases: any[] }; failed: () => string[] }) => void;
}

export function runConformanceCorpus(o: RunnerOptions): void {
  const needDb = needs({ pg: true, redis: true });
  const need = needDb.skip || !o.plane.unavailable ? needDb : { skip: true, why: o.plane.unavailable };
  const UPCOMING = !!o.upcoming;
  const mainCorpus = loadCorpus({ controllerName: CONTROLLER });
  const whole = UPCOMING ? loadCorpus({ controllerName: CONTROLLER, dir: join(mainCorpus.dir, 'upcoming') }) : mainCorpus;
  const corpus = { ...whole, cases: o.only ? whole.cases.filter(o.only) : whole.cases };
  const baseObjects = (): K8sObject[] => (UPCOMING ? [...mainCorpus.base(), ...whole.base()] : whole.base());
  const known = o.known ?? {};

  /**
   * What the proxy cannot do yet, or this machine cannot observe, by request entry: the first that
   * applies is the entry's skip reason. Each goes once it can be run (and the corpus run shows it passes).
   */
  const PROXY_GAPS: { why: string; applies: (r: any, e: any) => boolean }[] = [
    { why: 'needs the openssl command, to see the CertificateRequest', applies: (_r, e) => e.clientCertificateRequested !== undefined && !HAS_OPENSSL },
    // upcoming/: what this runner cannot stage yet (the proxy side is named in the report)
  ];

  type Entry = { gateway: { namespace: string; name: string }; dataPlane?: boolean; request: any; expect: any };
  interface TrafficLoop { stop(): void; finish(): Promise<string[]> }

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
      return `conformance requests through ${o.plane.short}: ${this.passed} passed, ${this.failed.length} failed, ${skipped} skipped, of ${total}`
        + ` (dataPlane: ${this.dataPlane.passed} passed, ${this.dataPlane.failed} failed, ${this.dataPlane.skipped} skipped, of ${dataPlaneTotal})`
        + `\n  of these, in cases of features the GatewayClass does not claim (${[...this.unclaimed.features].sort().join(', ') || 'none'}): ${this.unclaimed.passed} passed, ${this.unclaimed.failed} failed`
        + `\n  skipped by reason:${[...this.skipped].map(([why, n]) => `\n    ${n}: ${why}`).join('') || ' none'}`;
    }
  }

  const requestsOf = (c: any): Entry[] => [...(c.expect?.requests ?? []), ...(c.steps ?? []).flatMap((s: any) => s.expect?.requests ?? [])];
  const ALL = corpus.cases.flatMap(requestsOf);
  const counts = new Counts();

  describe.skipIf(need.skip)(`the conformance corpus${UPCOMING ? ' (upcoming cases)' : ''} through ${o.plane.title}${need.skip ? ` (skipped: ${need.why})` : ''}`, () => {
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
    const proxies = new Map<string, { proc: PlaneProcess; offset: number; base: boolean }>();
    /** what the data plane said it cannot honour */
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

    /**
     * upcoming/ (#5113): the Services of the external authorization pod are real authorization servers
     * (HTTP on the Service's port 9002, Envoy ext_authz gRPC on 9001) deciding as that pod is read to
     * (test/support/auth-servers.ts conformanceDecision), with an EndpointSlice each.
     */
    const authServers = new Map<string, AuthServer>();
    async function authSlices(svc: K8sObject): Promise<K8sObject[]> {
      const port = (svc as any).spec?.ports?.[0];
      const key = `${svc.metadata.namespace}/${svc.metadata.name}`;
      let s = authServers.get(key);
      if (!s) authServers.set(key, (s = port?.port === 9001 ? await startGRPCAuthServer(conformanceDecision) : await startHTTPAuthServer(conformanceDecision)));
      return [{
        apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
        metadata: { name: `${svc.metadata.name}-auth`, namespace: svc.metadata.namespace!, labels: { 'kubernetes.io/service-name': svc.metadata.name } },
        addressType: 'IPv4', ports: [{ name: port?.name ?? '', protocol: 'TCP', port: s.port }],
        endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
      } as unknown as K8sObject];
    }

    /** Writes an object; a Service also gets its pods and their EndpointSlices. */
    async function apply(o: K8sObject, touched?: Map<string, ObjectRef>): Promise<void> {
      fleet.remember(o);
      const auth = o.kind === 'Service' && o.metadata.annotations?.['conformance/upstream-pr'] === '5113';
      const all = [o, ...(o.kind === 'Service' ? await (auth ? authSlices(o) : fleet.service(o)) : [])];
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
      const range = testPortRange();
      for (;;) {
        // below the ephemeral range (32768 on Linux), where the pods' and everyone's outgoing ports are;
        // in TEST_PORT_RANGE when set (a Gateway whose ports span more than the range starts in it)
        const [lo, hi] = range ?? [20000, 32767];
        const room = Math.max(0, hi - lo - (Math.max(...ports) - Math.min(...ports)));
        const offset = range ? lo - Math.min(...ports) + Math.floor(Math.random() * (room + 1)) : 20000 + Math.floor(Math.random() * (32768 - 20000 - Math.max(...ports)));
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
        const proc = await o.plane.start(api.url, proxyToken, gw, offset);
        proxies.set(gw, (p = { proc, offset, base: isBase }));
      }
      return p;
    }

    async function stopProxy(gw: string): Promise<void> {
      const p = proxies.get(gw);
      if (!p) return;
      proxies.delete(gw);
      for (const g of o.plane.gapsOf?.(p.proc.output()) ?? []) gaps.add(g);
      await p.proc.stop();
      for (const port of gatewayPorts.get(gw) ?? []) usedLocalPorts.delete(port + p.offset);
    }

    /** Waits until the Gateway's proxy serves the snapshot the API has now; a port taken by another process gets the proxy another offset. */
    async function synced(gw: string, isBase: boolean): Promise<void> {
      for (let attempt = 0; ; attempt++) {
        try {
          return await syncedOnce(gw);
        } catch (e) {
          if (attempt >= 3 || !o.plane.addressInUse.test((e as Error).message)) throw e;
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
      for (const c of [{ manifests: baseObjects(), steps: [] }, ...corpus.cases]) {
        for (const o of [...(c.manifests ?? []), ...(c.steps ?? []).flatMap((s: any) => s.apply ?? [])]) {
          if (o.kind === 'Gateway') gatewayPorts.set(`${o.metadata.namespace}/${o.metadata.name}`, [...new Set([...(gatewayPorts.get(`${o.metadata.namespace}/${o.metadata.name}`) ?? []), ...(o.spec?.listeners ?? []).map((l: any) => l.port)])]);
        }
      }
      // the pods' certificates: Services come before Secrets in base.json
      for (const o of baseObjects()) fleet.remember(o);
      for (const o of baseObjects()) {
        base.set(refKey(refOf(o)), o);
        await apply(o);
        for (const s of o.kind === 'Service' && o.metadata.annotations?.['conformance/upstream-pr'] !== '5113' ? await fleet.service(o) : []) base.set(refKey(refOf(s)), s);
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
      console.log(`requests ${o.plane.short} did not honour (${counts.failed.length}):${counts.failed.map((f) => `\n  ${f}`).join('') || ' none'}`);
      if (o.plane.gapsOf) console.log(`what ${o.plane.short} says it cannot honour exactly (${gaps.size}):${[...gaps].sort().map((g) => `\n  ${g}`).join('') || ' none'}`);
      await fleet.close();
      await Promise.all(stagedPods.map((p) => p.close()));
      await Promise.all([...authServers.values()].map((a) => a.close()));
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

    /**
     * upcoming/ `setCookie` and `sessionAffinity` (#4954): the first answer's Set-Cookie (its first
     * value: name=value, attribute names compared case-insensitively), then follow-up requests on
     * new connections presenting that cookie, each answered by the pod that answered the first.
     */
    async function sessionEntry(entry: Entry, localPort: number): Promise<string[]> {
      const e = entry.expect;
      const first = await once(entry, localPort);
      const failures = [...first.failures];
      const raw = first.o.headers['set-cookie'];
      const cookie = raw?.split(/,(?=\s*[^;,=\s]+=)/)[0];
      const [pair, ...attrs] = (cookie ?? '').split(';').map((x) => x.trim());
      const eq = pair.indexOf('=');
      const attrNames = attrs.map((a) => a.split('=')[0].toLowerCase());
      if (e.setCookie) {
        if (!cookie || eq <= 0 || eq === pair.length - 1) failures.push(`no usable Set-Cookie (got ${raw ?? 'none'})`);
        for (const a of e.setCookie.absentAttributes ?? []) if (attrNames.includes(a.toLowerCase())) failures.push(`Set-Cookie carries ${a}: ${cookie}`);
        if (e.setCookie.anyOfAttributes && !e.setCookie.anyOfAttributes.some((a: string) => attrNames.includes(a.toLowerCase())))
          failures.push(`Set-Cookie carries none of ${e.setCookie.anyOfAttributes.join(', ')}: ${cookie}`);
      }
      if (e.sessionAffinity && eq > 0) {
        const pod = first.o.echo?.pod;
        if (!pod) failures.push('the first answer names no pod');
        const via = String(e.sessionAffinity.cookieVia).split(':')[1].toLowerCase();
        const follow: Entry = { ...entry, request: { ...entry.request, headers: { ...(entry.request.headers ?? {}), [via]: pair } }, expect: { ...e, setCookie: undefined, sessionAffinity: undefined } };
        for (let i = 0; i < e.sessionAffinity.followUpRequests; i++) {
          const x = await once(follow, localPort);
          if (x.failures.length) failures.push(`follow-up ${i + 1}: ${x.failures.join('; ')}`);
          else if (x.o.echo?.pod !== pod) failures.push(`follow-up ${i + 1} answered by ${x.o.echo?.pod ?? 'no pod'} (want ${pod})`);
        }
      }
      return failures;
    }

    /**
     * upcoming/ `continuousTraffic` (#4523): the entry's request sent back to back, each on a new
     * connection, from before a step's changes; finish() waits stopAfterMs once the step's other
     * expectations held, stops, and says what failed (a transport error or another status).
     */
    function trafficLoop(entry: Entry): TrafficLoop {
      const gw = `${entry.gateway.namespace}/${entry.gateway.name}`;
      const ct = entry.expect.continuousTraffic;
      const want = entry.expect.statusCode ?? 200;
      let running = true;
      let sent = 0;
      const failures: string[] = [];
      const done = (async () => {
        while (running) {
          const p = proxies.get(gw);
          if (!p) {
            failures.push('no proxy for the Gateway');
            return;
          }
          const o = await send(entry.request, {}, { localPort: (entry.request.port ?? 80) + p.offset, requestId: randomUUID() }, randomUUID());
          sent++;
          if (o.rejected || o.status !== want) failures.push(o.rejected ? `no answer: ${o.rejected}` : `status ${o.status}`);
        }
      })();
      const stop = () => { running = false; };
      return {
        stop,
        async finish() {
          await new Promise((r) => setTimeout(r, ct.stopAfterMs));
          stop();
          await done;
          const out: string[] = [];
          if (failures.length > ct.maxFailedRequests) out.push(`${failures.length} of ${sent} requests failed during the change (at most ${ct.maxFailedRequests}), e.g. ${failures[0]}`);
          if (sent < ct.minRequests) out.push(`${sent} requests sent (at least ${ct.minRequests})`);
          return out;
        },
      };
    }

    /**
     * upcoming/ `trustedCA` (#5147): a TCP connect and a full TLS handshake with the entry's SNI that
     * trusts only that certificate (a Secret's tls.crt, a ConfigMap's ca.crt), as upstream dials
     * (1 s per attempt, three attempts); with connectionRejected, every attempt must fail.
     */
    async function trustedDial(r: any, e: any, localPort: number): Promise<string[]> {
      const ref = `${r.trustedCA.namespace}/${r.trustedCA.name}`;
      const anchor = r.trustedCA.kind === 'Secret' ? fleet.keyPair(ref)?.cert : fleet.caBundle(ref);
      if (!anchor) return [`no certificate to trust in ${r.trustedCA.kind} ${ref}`];
      const dial = () => new Promise<string | undefined>((resolve) => {
        const sock = tls.connect({ host: '127.0.0.1', port: localPort, servername: r.sni, ca: anchor, rejectUnauthorized: true, checkServerIdentity: () => undefined });
        const timer = setTimeout(() => { sock.destroy(); resolve('timed out'); }, 1000);
        sock.once('secureConnect', () => { clearTimeout(timer); sock.destroy(); resolve(undefined); });
        sock.once('error', (err) => { clearTimeout(timer); resolve((err as NodeJS.ErrnoException).code ?? err.message); });
      });
      const out: string[] = [];
      for (let i = 0; i < 3; i++) {
        const why = await dial();
        if (e.connectionRejected && why === undefined) out.push(`attempt ${i + 1}: the handshake trusting ${r.trustedCA.kind} ${ref} succeeded`);
        if (!e.connectionRejected && why !== undefined) out.push(`attempt ${i + 1}: the handshake failed (${why})`);
      }
      return out;
    }

    /**
     * upcoming/ `backendBehaviour.endpoints` (#5183): the Service the entry expects is given `count`
     * pods of each workload, named after it; one that refuses connections is a port bound and closed
     * again (nothing listens: every connection is refused before a request is sent).
     */
    const stagedPods: EchoPod[] = [];
    async function stageEndpoints(entry: Entry, touched: Map<string, ObjectRef>): Promise<void> {
      const svcRef = entry.expect.backend;
      const svc = await call('GET', `/api/v1/namespaces/${svcRef.namespace}/services/${svcRef.name}`);
      const ports: any[] = svc.body?.spec?.ports ?? [];
      const target = (p: any) => (typeof p.targetPort === 'number' ? p.targetPort : p.port);
      const endpoints: { port: number; name: string }[] = [];
      for (const w of entry.request.backendBehaviour.endpoints) {
        for (let i = 0; i < w.count; i++) {
          if (w.refuseConnections) {
            const port = await new Promise<number>((r) => { const x = net.createServer().listen(0, '127.0.0.1', () => { const p = (x.address() as net.AddressInfo).port; x.close(() => r(p)); }); });
            endpoints.push({ port, name: `${w.workload}-${i}` });
          } else {
            const pod = await startEchoPod({ service: svcRef.name, namespace: svcRef.namespace, name: `${w.workload}-${i}`, targetPorts: ports.map(target), attempts: new Map() });
            stagedPods.push(pod);
            endpoints.push({ port: pod.ports.get(target(ports[0]))!, name: pod.name });
          }
        }
      }
      // the fleet's slices of the Service give way to these
      for (const x of await fleet.service(svc.body)) await del(refOf(x));
      for (const [i, e] of endpoints.entries()) {
        const slice = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
          metadata: { name: `${svcRef.name}-staged-${i}`, namespace: svcRef.namespace, labels: { 'kubernetes.io/service-name': svcRef.name } },
          addressType: 'IPv4', ports: [{ name: ports[0]?.name ?? '', protocol: 'TCP', port: e.port }],
          endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }] } as unknown as K8sObject;
        touched.set(refKey(refOf(slice)), refOf(slice));
        await put(slice);
      }
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
      if (e.setCookie || e.sessionAffinity) return sessionEntry(entry, localPort);
      if (r.trustedCA) return trustedDial(r, e, localPort);
      if (e.consecutiveSuccesses || e.backendWorkload) {
        // upcoming/: the entry must hold for that many requests in a row (after a first one that holds)
        let last: string[] = [];
        for (let attempt = 0; attempt < 3; attempt++) {
          last = [];
          for (let i = 0; i < (e.consecutiveSuccesses ?? 1) && last.length === 0; i++) {
            const x = await once(entry, localPort);
            last = [...x.failures];
            if (e.backendWorkload && !(x.o.echo?.pod ?? '').startsWith(e.backendWorkload)) last.push(`answered by pod ${x.o.echo?.pod ?? 'none'} (want one of ${e.backendWorkload})`);
            if (last.length) last = [`request ${i + 1} in a row: ${last.join('; ')}`];
          }
          if (last.length === 0) return [];
          await new Promise((res) => setTimeout(res, 200));
        }
        return last;
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

    it(`finds the ${UPCOMING ? 'upcoming cases' : 'corpus'}${o.only ? ' it selects' : ''}: ${o.expectCounts.requests} request expectations, ${o.expectCounts.dataPlane} of them dataPlane`, () => {
      expect(ALL.length).toBe(o.expectCounts.requests);
      expect(ALL.filter((e) => e.dataPlane).length).toBe(o.expectCounts.dataPlane);
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
        const loops = new Map<Entry, TrafficLoop>();
        const failures: string[] = [];
        const phase = async (where: string, list: Entry[] | undefined) => {
          const run: Entry[] = [];
          for (const entry of list ?? []) {
            const gap = PROXY_GAPS.find((g) => g.applies(entry.request, entry.expect));
            if (gap) counts.skip(gap.why, 1, entry.dataPlane ? 1 : 0);
            else run.push(entry);
          }
          if (run.length === 0) return;
          for (const entry of run) if (entry.request.backendBehaviour?.endpoints) await stageEndpoints(entry, touched);
          await reconcile();
          for (const gw of new Set(run.map((x) => `${x.gateway.namespace}/${x.gateway.name}`))) {
            const isBase = base.has(refKey({ kind: 'Gateway', namespace: gw.split('/')[0], name: gw.split('/')[1] }));
            if (!isBase) caseGateways.add(gw);
            await proxyFor(gw, isBase);
            await synced(gw, isBase);
          }
          for (const [i, entry] of run.entries()) {
            const loop = entry.expect.continuousTraffic ? loops.get(entry) : undefined;
            const got = loop ? await loop.finish() : await runEntry(entry);
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
            // upcoming/ continuousTraffic: the loops that start before this step's changes
            for (const later of c.steps ?? []) for (const entry of (later.expect?.requests ?? []) as Entry[])
              if (entry.expect.continuousTraffic?.startBeforeStep === si) loops.set(entry, trafficLoop(entry));
            for (const ref of s.delete ?? []) {
              const r = { kind: ref.kind, namespace: kindInfo(ref.kind)?.scope === 'Cluster' ? undefined : ref.namespace, name: ref.name };
              touched.set(refKey(r), r);
              await del(r);
            }
            for (const o of s.apply ?? []) await apply(o, touched);
            await phase(`step ${si + 1}`, s.expect?.requests);
          }
        } finally {
          for (const l of loops.values()) l.stop();
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
        const knownWhy = known[c.name];
        if (!knownWhy) expect(failures).toEqual([]);
        else {
          console.log(`${o.plane.short} cannot honour ${c.name} (${failures.length} request(s)): ${knownWhy}`);
          // a gap that closes is taken off the list, so that the list only ever says what is true
          expect(failures.length, `${c.name} now passes through ${o.plane.short}: take it off the list of known cases`).toBeGreaterThan(0);
        }
      }, 120_000);
    }

    o.more?.({ planes: () => new Map([...proxies].map(([k, v]) => [k, v.proc])), corpus, failed: () => counts.failed });

    it('prints the counts, and runs at least the entries it ran before', () => {
      console.log(counts.line(ALL.length, ALL.filter((e) => e.dataPlane).length));
      expect(counts.passed + counts.failed.length + [...counts.skipped.values()].reduce((a, b) => a + b, 0)).toBe(ALL.length);
      expect(counts.passed).toBeGreaterThan(0);
    });
  });
}
