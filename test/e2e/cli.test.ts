// The `switchyard` binary (bin/switchyard.js) run as a separate process against a running server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, ADMIN_TOKEN, type TestServer } from '../support/server';
import { runCli, type RunOptions } from '../support/cli';
import { tempDir } from '../support/temp-dir';

let s: TestServer;
let dir: string;

const run = (args: string[], opts: RunOptions = {}) =>
  runCli(() => ({ SWITCHYARD_URL: s.url, SWITCHYARD_TOKEN: ADMIN_TOKEN, SWITCHYARD_NAMESPACE: 'shop' }), args, opts);

const INFRA = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: cli-class}
spec: {controllerName: switchyard.dev/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge}
spec:
  gatewayClassName: cli-class
  listeners:
  - {name: http, port: 80, protocol: HTTP}
`;

const APP = (endpoints: string[], path = '/api') => `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web}
spec:
  parentRefs: [{name: edge}]
  hostnames: [shop.example.com]
  rules:
  - matches: [{path: {type: PathPrefix, value: ${path}}}]
    backendRefs: [{name: api, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: api}
spec: {ports: [{port: 80, targetPort: 8080}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: api-1, labels: {kubernetes.io/service-name: api}}
addressType: IPv4
ports: [{port: 8080}]
endpoints: [${endpoints.map((e) => `{addresses: [${e}]}`).join(', ')}]
`;

beforeAll(async () => {
  s = await startTestServer({ rateLimitPerSecond: 0 });
  dir = tempDir('sy-cli-');
  mkdirSync(join(dir, 'site'));
  writeFileSync(join(dir, 'site/infra.yaml'), INFRA);
  writeFileSync(join(dir, 'site/app.yaml'), APP(['10.1.0.1', '10.1.0.2']));
  writeFileSync(join(dir, 'site/README.md'), 'not a manifest');
});
afterAll(async () => {
  await s?.close();
});

describe('switchyard CLI', () => {
  it('prints --help for every command, exit 0', async () => {
    for (const cmd of ['apply', 'analyze', 'get', 'describe', 'history', 'resolve', 'watch']) {
      const r = await run([cmd, '--help']);
      expect(r.code, cmd).toBe(0);
      expect(r.stdout, cmd).toContain(`Usage: switchyard ${cmd}`);
    }
    const top = await run(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('Commands:');
  }, 60_000);

  it('applies a directory with an apply set and waits for the conditions', async () => {
    const r = await run(['apply', '-f', join(dir, 'site'), '--apply-set', 'shop', '--wait', '30s']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('HTTPRoute shop/web created');
    expect(r.stdout).toContain('Gateway shop/edge created');
    expect(r.stdout).toMatch(/parent shop\/edge\s+Accepted\s+True/);
    expect(r.stdout).toMatch(/listener http\s+Programmed\s+True/);
    expect(r.stdout).toContain('5 objects: 5 created, 0 configured, 0 unchanged, 0 pruned');
    const again = await run(['apply', '-f', join(dir, 'site'), '--apply-set', 'shop']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('0 created, 0 configured, 5 unchanged, 0 pruned');
  });

  it('gets tables, YAML and JSON', async () => {
    const gws = await run(['get', 'gateways']);
    expect(gws.code).toBe(0);
    expect(gws.stdout).toMatch(/^NAME\s+CLASS\s+LISTENERS\s+ACCEPTED\s+PROGRAMMED\s+AGE$/m);
    expect(gws.stdout).toMatch(/^edge\s+cli-class\s+1\s+True\s+True\s+\d+s$/m);
    const all = await run(['get', 'httproutes', '-A']);
    expect(all.stdout).toMatch(/^NAMESPACE\s+NAME/m);
    expect(all.stdout).toMatch(/^shop\s+web\s+shop\.example\.com\s+1\/1/m);
    const one = await run(['get', 'hr', 'web', '-o', 'yaml']);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('kind: HTTPRoute');
    expect(one.stdout).toContain('switchyard.dev/apply-set: shop');
    const json = await run(['get', 'svc', '-n', 'shop', '-o', 'json']);
    expect(JSON.parse(json.stdout).items.map((o: any) => o.metadata.name)).toEqual(['api']);
    const cls = await run(['get', 'gatewayclass', 'cli-class']);
    expect(cls.stdout).toMatch(/cli-class\s+switchyard\.dev\/gateway-controller\s+True/);
    const none = await run(['get', 'configmaps']);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('No configmaps found');
  });

  it('describes objects with their conditions per listener and per parent', async () => {
    const gw = await run(['describe', 'gateway', 'edge']);
    expect(gw.code).toBe(0);
    expect(gw.stdout).toContain('Name:         edge');
    expect(gw.stdout).toMatch(/Listeners:\n\s+NAME\s+PORT\s+PROTOCOL\s+HOSTNAME\s+ATTACHED ROUTES\n\s+http\s+80\s+HTTP\s+\*\s+1/);
    expect(gw.stdout).toMatch(/SCOPE\s+TYPE\s+STATUS\s+REASON\s+AGE\s+MESSAGE/);
    expect(gw.stdout).toMatch(/Gateway\s+Accepted\s+True\s+Accepted/);
    expect(gw.stdout).toMatch(/listener http\s+Programmed\s+True/);
    const rt = await run(['describe', 'httproute', 'web']);
    expect(rt.stdout).toMatch(/parent shop\/edge\s+Accepted\s+True/);
    expect(rt.stdout).toMatch(/parent shop\/edge\s+ResolvedRefs\s+True/);
  });

  it('shows history, with a diff of what each change made', async () => {
    const before = await run(['history', 'httproute', 'web', '-o', 'json']);
    const last = (JSON.parse(before.stdout).items as { version: number }[]).at(-1)!.version;
    const patched = await s.api('PATCH', '/api/v1/namespaces/shop/httproutes/web', { metadata: { labels: { tier: 'front' } } });
    expect(patched.status).toBe(200);
    const r = await run(['history', 'httproute', 'web']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^VERSION\s+CHANGE\s+ACTOR\s+TIME$/m);
    expect(r.stdout).toMatch(/^1\s+Created\s+admin\s+\d{4}-/m);
    // the creation: the whole object added
    expect(r.stdout).toMatch(/^version 1: Created by admin at \d{4}-.*\n--- \/dev\/null\n\+\+\+ httproute\/web@1\n@@ -0,0 \+1,\d+ @@\n/m);
    expect(r.stdout).toContain('+    - shop.example.com\n');
    // the label patched in: one line added, with context, and nothing else
    const next = last + 1;
    const change = r.stdout.slice(r.stdout.indexOf(`version ${next}: Updated by admin`));
    expect(change).toMatch(new RegExp(`^version ${next}: Updated by admin at .*\n--- httproute/web@${last}\n\\+\\+\\+ httproute/web@${next}\n@@ -\\d+,\\d+ \\+\\d+,\\d+ @@\n`));
    expect(change.split('\n').filter((l) => /^[-+](?![-+]{2} )/.test(l))).toEqual(['+    tier: front']);
    const one = await run(['history', 'httproute', 'web', '--version', String(next)]);
    expect(one.code).toBe(0);
    expect(one.stdout).not.toContain('VERSION');
    expect(one.stdout).toContain('+    tier: front');
    const between = await run(['history', 'httproute', 'web', '--diff', `1..${next}`]);
    expect(between.stdout).toMatch(/^--- httproute\/web@1\n\+\+\+ httproute\/web@\d+\n@@/);
    expect(between.stdout).toContain('+    tier: front');
    const same = await run(['history', 'httproute', 'web', '--diff', `${next}..${next}`]);
    expect(same.stdout).toBe(`versions ${next} and ${next} of httproute/web do not differ\n`);
    const missing = await run(['history', 'httproute', 'web', '--version', '999']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('httproute/web has no version 999');
  });

  it('resolves a request: decision and explanation', async () => {
    const r = await run(['resolve', 'edge', '--host', 'shop.example.com', '--path', '/api/items', '--method', 'GET', '--header', 'x-user=1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Decision:     forwarded by HTTPRoute shop/web, rule 0');
    expect(r.stdout).toContain('Listener:     http');
    expect(r.stdout).toMatch(/\* Service shop\/api\s+80\s+1\s+100%\s+yes/);
    expect(r.stdout).toContain('Explanation:');
    const miss = await run(['resolve', 'edge', '--host', 'other.example.com', '--path', '/']);
    expect(miss.code).toBe(0);
    expect(miss.stdout).toContain('answered by the gateway with 404');
  });

  it('dry-runs with a diff, writing nothing', async () => {
    writeFileSync(join(dir, 'site/app.yaml'), APP(['10.1.0.1', '10.1.0.2'], '/api/v2'));
    const r = await run(['apply', '-f', join(dir, 'site'), '--apply-set', 'shop', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('HTTPRoute shop/web configured (dry run)');
    expect(r.stdout).toMatch(/^\s+-\s+value: \/api$/m);
    expect(r.stdout).toMatch(/^\s+\+\s+value: \/api\/v2$/m);
    expect(r.stdout).toContain('(dry run, nothing written)');
    const still = await run(['get', 'hr', 'web', '-o', 'json']);
    expect(JSON.parse(still.stdout).spec.rules[0].matches[0].path.value).toBe('/api');
    writeFileSync(join(dir, 'site/app.yaml'), APP(['10.1.0.1', '10.1.0.2']));
  });

  it('watches a Gateway: each new snapshot version and what changed', async () => {
    const watching = run(['watch', 'edge', '--count', '2'], { timeoutMs: 40_000 });
    await new Promise((r) => setTimeout(r, 2500));
    writeFileSync(join(dir, 'site/app.yaml'), APP(['10.1.0.1', '10.1.0.2', '10.1.0.3']));
    const a = await run(['apply', '-f', join(dir, 'site'), '--apply-set', 'shop']);
    expect(a.code).toBe(0);
    const w = await watching;
    expect(w.code, w.stderr).toBe(0);
    const lines = w.stdout.split('\n');
    expect(lines[0]).toMatch(/version \d+: 1 listener, 1 route, 1 match entry, 2 endpoints/);
    expect(w.stdout).toMatch(/version \d+ \(was \d+\): .*3 endpoints/);
    expect(w.stdout).toContain('backend Service shop/api:80 (HTTPRoute shop/web rule 0): endpoints 2 -> 3 (+10.1.0.3:8080)');
  }, 60_000);

  it('prunes what the manifests no longer hold', async () => {
    const r = await run(['apply', '-f', join(dir, 'site/infra.yaml'), '--apply-set', 'shop', '--prune']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('HTTPRoute shop/web pruned');
    expect(r.stdout).toContain('EndpointSlice shop/api-1 pruned');
    const gone = await run(['get', 'hr', 'web']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('404');
  });

  it('reads standard input and names the file, document and path of every problem (exit 1, nothing written)', async () => {
    const bad = `apiVersion: v1\nkind: Service\nmetadata: {name: ok}\nspec: {ports: [{port: 80}]}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: bad}\nspec: {ports: [{port: 99999}]}\n`;
    const r = await run(['apply', '-f', '-'], { stdin: bad });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('422');
    expect(r.stderr).toContain('<stdin> (document 1): Service shop/bad: spec.ports[0].port');
    expect((await run(['get', 'svc', 'ok'])).code).toBe(1);
  });

  it('exits non-zero with the error on stderr: usage, auth, unreachable server, unknown kind', async () => {
    const usage = await run(['apply']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('apply needs -f');
    const prune = await run(['apply', '-f', join(dir, 'site'), '--prune']);
    expect(prune.code).toBe(2);
    const unknown = await run(['frobnicate']);
    expect(unknown.code).toBe(2);
    const kind = await run(['get', 'widgets']);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toContain('unknown kind');
    const auth = await run(['get', 'gateways'], { env: { SWITCHYARD_TOKEN: 'nope' } });
    expect(auth.code).toBe(1);
    expect(auth.stderr).toContain('401');
    const down = await run(['get', 'gateways'], { env: { SWITCHYARD_URL: 'http://127.0.0.1:9' } });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('cannot reach http://127.0.0.1:9');
    const missing = await run(['describe', 'gateway', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('not found');
  }, 60_000);
});
