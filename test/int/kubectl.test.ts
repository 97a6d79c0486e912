// The real kubectl (v1.32 here) against the Kubernetes paths, with the upstream conformance suite's
// own manifests: apply client-side and server-side (again unchanged: no event), get in every output,
// get -w, describe, diff, wait, explain, label, patch, auth can-i, delete -f. Skipped, saying why,
// where kubectl is absent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { readFileSync } from 'node:fs';
import { mintToken, reconciled, startTestServer, type TestServer } from '../support/server';
import { conformanceDir } from '../support/corpora';
import { kubectlFor, kubectlMissing, type Kubectl } from '../support/kubectl';
import { tempDir } from '../support/temp-dir';

const missing = kubectlMissing();
if (missing) console.log(`test/int/kubectl.test.ts skipped: ${missing}`);

const NS = 'gateway-conformance-infra';
const ROUTE = 'gateway-conformance-infra-test';
let s: TestServer;
let k: Kubectl;
let dir: string;
const files: Record<string, string> = {};

const eventCount = async () => Number((await s.running.ctx.db.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM events'))[0].n);

/** An upstream manifest set as kubectl reads it: YAML documents, the suite's placeholders filled in. */
function manifestFile(name: string, objects: unknown[], controllerName: string): string {
  const text = objects.map((o) => stringify(o)).join('---\n')
    .replaceAll('{GATEWAY_CLASS_NAME}', 'switchyard').replaceAll('{GATEWAY_CONTROLLER_NAME}', controllerName);
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe.skipIf(missing !== null)('kubectl', () => {
  beforeAll(async () => {
    s = await startTestServer({ rateLimitPerSecond: 0 });
    k = kubectlFor(s, 'test-admin-token-0123456789', 'admin');
    dir = tempDir('sy-kubectl-manifests-');
    const base = JSON.parse(readFileSync(join(conformanceDir(), 'base.json'), 'utf8'));
    const simple = JSON.parse(readFileSync(join(conformanceDir(), 'cases', 'HTTPRouteSimpleSameNamespace.json'), 'utf8'));
    const controller = s.running.ctx.config.controllerName;
    files.base = manifestFile('base.yaml', base, controller);
    files.route = manifestFile('route.yaml', simple.manifests, controller);
    files.drifted = manifestFile('drifted.yaml', simple.manifests.map((o: any) => ({ ...o, spec: { ...o.spec, hostnames: ['drift.example'] } })), controller);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('apply -f creates the upstream manifests; applied again, it writes no event', async () => {
    const first = await k.run(['apply', '-f', files.base, '-f', files.route]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`httproute.gateway.networking.k8s.io/${ROUTE} created`);
    expect(first.stdout).toContain('service/infra-backend-v1 created');
    const before = await eventCount();
    const again = await k.run(['apply', '-f', files.base, '-f', files.route]);
    expect(again.code, again.stderr).toBe(0);
    // kubectl may still send a patch (the live lists hold the server's defaults), which changes nothing
    expect(again.stdout).toMatch(new RegExp(`httproute.gateway.networking.k8s.io/${ROUTE} (unchanged|configured)`));
    expect(again.stdout).toContain('service/infra-backend-v1 unchanged');
    expect(await eventCount()).toBe(before);
  }, 60_000);

  it('apply --server-side takes the objects over; once ownership has settled, applied again, it writes no event', async () => {
    const first = await k.run(['apply', '--server-side', '-f', files.base, '-f', files.route]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`httproute.gateway.networking.k8s.io/${ROUTE} serverside-applied`);
    // kubectl moves the client-side manager's fields to itself after the first server-side apply, and
    // the next apply gives the annotation back to its own manager: changes of managedFields, events
    // as on kube-apiserver (a new resourceVersion). After those, nothing changes.
    expect((await k.run(['apply', '--server-side', '-f', files.base, '-f', files.route])).code).toBe(0);
    const before = await eventCount();
    const again = await k.run(['apply', '--server-side', '-f', files.base, '-f', files.route]);
    expect(again.code, again.stderr).toBe(0);
    expect(await eventCount()).toBe(before);
  }, 60_000);

  it('apply --server-side: a conflict with another manager is exit 1; --dry-run=server writes nothing; --force-conflicts takes over', async () => {
    const cm = (mode: string) => manifestFile(`cm-${mode}.yaml`, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: NS }, data: { mode } }], '');
    const mine = await k.run(['apply', '--server-side', '--field-manager=alice', '-f', cm('a')]);
    expect(mine.code, mine.stderr).toBe(0);
    const clash = await k.run(['apply', '--server-side', '-f', cm('b')]);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain('conflict with "alice"');
    expect(clash.stderr).toContain('.data.mode');
    const before = await eventCount();
    const dry = await k.run(['apply', '--server-side', '--force-conflicts', '--dry-run=server', '-f', cm('b')]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('serverside-applied (server dry run)');
    expect(await eventCount()).toBe(before);
    expect((await k.run(['get', 'configmap', 'settings', '-n', NS, '-o', 'jsonpath={.data.mode}'])).stdout).toBe('a');
    const forced = await k.run(['apply', '--server-side', '--force-conflicts', '-f', cm('b')]);
    expect(forced.code, forced.stderr).toBe(0);
    expect((await k.run(['get', 'configmap', 'settings', '-n', NS, '-o', 'jsonpath={.data.mode}'])).stdout).toBe('b');
  }, 60_000);

  it('wait --for=condition=Programmed sees the Gateway programmed', async () => {
    const r = await k.run(['wait', '--for=condition=Programmed', `gateway/same-namespace`, '-n', NS, '--timeout=30s']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('condition met');
  }, 60_000);

  it('get prints the upstream columns, and -o yaml|json|wide|name, -A', async () => {
    const table = await k.run(['get', 'gateways', '-n', NS]);
    expect(table.stdout.split('\n')[0].split(/\s+/)).toEqual(['NAME', 'CLASS', 'ADDRESS', 'PROGRAMMED', 'AGE']);
    expect(table.stdout).toMatch(/same-namespace\s+switchyard\s+True/);
    const all = await k.run(['get', 'httproutes', '-A']);
    expect(all.stdout.split('\n')[0].split(/\s+/)).toEqual(['NAMESPACE', 'NAME', 'HOSTNAMES', 'AGE']);
    expect(all.stdout).toContain(`${NS}   ${ROUTE}`);
    const json = JSON.parse((await k.run(['get', 'httproute', ROUTE, '-n', NS, '-o', 'json'])).stdout);
    expect(json.spec.rules[0].backendRefs[0].name).toBe('infra-backend-v1');
    expect(json.status.parents[0].conditions.find((c: any) => c.type === 'Accepted').status).toBe('True');
    expect((await k.run(['get', 'httproute', ROUTE, '-n', NS, '-o', 'yaml'])).stdout).toContain(`name: ${ROUTE}`);
    expect((await k.run(['get', 'gatewayclasses', '-o', 'wide'])).stdout.split('\n')[0]).toContain('DESCRIPTION');
    expect((await k.run(['get', 'svc', '-n', NS, '-o', 'name'])).stdout).toContain('service/infra-backend-v1');
  }, 60_000);

  it('describe shows the object and its conditions', async () => {
    const r = await k.run(['describe', 'gateway', 'same-namespace', '-n', NS]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Programmed');
    expect(r.stdout).toContain('Gateway Class Name:  switchyard');
    // a Service's endpoints come from its EndpointSlices, whose ports kubectl reads as kube-apiserver fills them in
    const quickstart = await k.run(['apply', '-f', join(import.meta.dirname, '../../examples/quickstart')]);
    expect(quickstart.code, quickstart.stderr).toBe(0);
    const svc = await k.run(['describe', 'service', 'api', '-n', 'shop']);
    expect(svc.code, svc.stderr).toBe(0);
    expect(svc.stdout).toMatch(/Endpoints:\s+10\.0\.2\.10:8080/);
  }, 60_000);

  it('explain reads the schema', async () => {
    const r = await k.run(['explain', 'httproute.spec.rules']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('backendRefs');
    expect(r.stdout).toContain('KIND:       HTTPRoute');
  }, 60_000);

  it('label, patch --type=merge and --type=json, and get -w sees each change', async () => {
    const watch = k.spawn(['get', 'httproutes', '-n', NS, '-w', '--output-watch-events']);
    let out = '';
    watch.stdout!.on('data', (d) => (out += d));
    try {
      await new Promise((r) => setTimeout(r, 1500));
      expect((await k.run(['label', 'httproute', ROUTE, '-n', NS, 'team=a'])).stdout).toContain('labeled');
      expect((await k.run(['get', 'httproutes', '-n', NS, '-l', 'team=a', '-o', 'name'])).stdout.trim()).toBe(`httproute.gateway.networking.k8s.io/${ROUTE}`);
      const m = await k.run(['patch', 'httproute', ROUTE, '-n', NS, '--type=merge', '-p', '{"spec":{"hostnames":["a.example"]}}']);
      expect(m.code, m.stderr).toBe(0);
      const j = await k.run(['patch', 'httproute', ROUTE, '-n', NS, '--type=json', '-p', '[{"op":"add","path":"/spec/hostnames/-","value":"b.example"}]']);
      expect(j.code, j.stderr).toBe(0);
      expect((await k.run(['get', 'httproute', ROUTE, '-n', NS, '-o', 'jsonpath={.spec.hostnames}'])).stdout).toBe('["a.example","b.example"]');
      for (let i = 0; i < 50 && !out.includes('b.example'); i++) await new Promise((r) => setTimeout(r, 100));
    } finally {
      watch.kill();
    }
    expect(out).toMatch(/ADDED\s+gateway-conformance-infra-test/);
    expect(out).toMatch(/MODIFIED\s+gateway-conformance-infra-test\s+a\.example,b\.example/);
  }, 60_000);

  it('diff exits 1 on drift and 0 without', async () => {
    // diff reads the live object and a dry run at two moments: a status the reconciler writes in
    // between (after the earlier tests' changes, or the apply below) would show as drift too
    await reconciled(s);
    const drift = await k.run(['diff', '-f', files.drifted]);
    expect(drift.code, drift.stderr).toBe(1);
    expect(drift.stdout).toContain('+  - drift.example');
    await k.run(['apply', '--server-side', '--force-conflicts', '-f', files.drifted]);
    await reconciled(s);
    const none = await k.run(['diff', '-f', files.drifted]);
    expect(none.code, none.stdout + none.stderr).toBe(0);
  }, 60_000);

  it('auth can-i answers from the role table', async () => {
    const dev = kubectlFor(s, await mintToken(s, { name: 'dev-infra', role: 'developer', namespaces: [NS] }), 'dev-infra');
    expect((await dev.run(['auth', 'can-i', 'create', 'httproutes', '-n', NS])).stdout.trim()).toBe('yes');
    const no = await dev.run(['auth', 'can-i', 'create', 'gateways', '-n', NS]);
    expect(no.stdout.trim()).toMatch(/^no\b/);
    expect(no.code).toBe(1);
    expect((await dev.run(['auth', 'can-i', 'create', 'httproutes', '-n', 'elsewhere'])).stdout.trim()).toMatch(/^no\b/);
    // and the rule holds where it matters
    const refused = await dev.run(['delete', 'gateway', 'same-namespace', '-n', NS]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Forbidden');
  }, 60_000);

  it('delete -f deletes, and the event names the token', async () => {
    const r = await k.run(['delete', '-f', files.route]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`httproute.gateway.networking.k8s.io "${ROUTE}" deleted`);
    const get = await k.run(['get', 'httproute', ROUTE, '-n', NS]);
    expect(get.code).toBe(1);
    expect(get.stderr).toContain('NotFound');
    const [ev] = await s.running.ctx.db.prisma.$queryRawUnsafe<{ actor: string; type: string }[]>(
      `SELECT actor, type FROM events WHERE name = $1 ORDER BY position DESC LIMIT 1`, ROUTE);
    expect(ev).toEqual({ actor: 'admin', type: 'Deleted' });
  }, 60_000);
});
