// First contact, through the `switchyard` binary against a running server: analyze on a folder,
// apply printing the server's Warning headers, files that are not YAML or hold nothing, and
// describe saying why an object has no status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, ADMIN_TOKEN, reconciled, type TestServer } from '../support/server';
import { runCli, type RunOptions } from '../support/cli';
import { ROOT } from '../support/process';
import { tempDir } from '../support/temp-dir';

let s: TestServer;
let dir: string;

const run = (args: string[], opts: RunOptions = {}) =>
  runCli(() => ({ SWITCHYARD_URL: s.url, SWITCHYARD_TOKEN: ADMIN_TOKEN, SWITCHYARD_NAMESPACE: 'shop' }), args, opts);

const G = 'gateway.networking.k8s.io/v1';

const CLASS = `apiVersion: ${G}
kind: GatewayClass
metadata: {name: first-class}
spec: {controllerName: switchyard.dev/gateway-controller}
`;

const EDGE = `apiVersion: ${G}
kind: Gateway
metadata: {name: edge}
spec:
  gatewayClassName: first-class
  listeners:
  - {name: web, port: 80, protocol: HTTP, hostname: "*.example.com"}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{port: 80}]}
`;

const route = (name: string, spec: string) => `apiVersion: ${G}
kind: HTTPRoute
metadata: {name: ${name}}
spec:
${spec}`;

/** One route per warning kind, each in its own file, some in a subdirectory. */
const FLAWED: Record<string, string> = {
  'dangling.yaml': route('dangling', `  parentRefs: [{name: nowhere}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
`),
  'backends/missing.yaml': route('missing-backends', `  parentRefs: [{name: edge}]
  hostnames: [a.example.com]
  rules:
  - matches: [{path: {type: PathPrefix, value: /gone}}]
    backendRefs: [{name: gone, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /port}}]
    backendRefs: [{name: web, port: 8443}]
`),
  'backends/cross.yaml': route('cross', `  parentRefs: [{name: edge}]
  hostnames: [c.example.com]
  rules: [{backendRefs: [{name: db, namespace: data, port: 5432}]}]
`),
  'hostnames.yaml': route('elsewhere', `  parentRefs: [{name: edge}]
  hostnames: [shop.example.org]
  rules: [{backendRefs: [{name: web, port: 80}]}]
`),
  'shadow/first.yaml': route('first', `  parentRefs: [{name: edge}]
  hostnames: [s.example.com]
  rules: [{matches: [{path: {type: PathPrefix, value: /}}], backendRefs: [{name: web, port: 80}]}]
`).replace('name: first}', 'name: first, creationTimestamp: "2026-01-01T00:00:00Z"}'),
  'shadow/second.yaml': route('second', `  parentRefs: [{name: edge}]
  hostnames: [s.example.com]
  rules: [{matches: [{path: {type: PathPrefix, value: /}}], backendRefs: [{name: web, port: 80}]}]
`).replace('name: second}', 'name: second, creationTimestamp: "2026-02-01T00:00:00Z"}'),
};

function writeTree(root: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

beforeAll(async () => {
  s = await startTestServer({ rateLimitPerSecond: 0 });
  dir = tempDir('sy-first-');
  writeTree(join(dir, 'flawed'), { 'edge.yaml': EDGE, ...FLAWED });
  writeTree(join(dir, 'clean'), { 'edge.yaml': EDGE, 'nested/app.yaml': route('app', `  parentRefs: [{name: edge}]
  hostnames: [app.example.com]
  rules: [{backendRefs: [{name: web, port: 80}]}]
`) });
});
afterAll(async () => {
  await s?.close();
});

describe('switchyard analyze', () => {
  it('warns about each kind of problem in a folder, read recursively, and exits 1', async () => {
    const r = await run(['analyze', '-f', join(dir, 'flawed')]);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stdout.trim().split('\n');
    const has = (code: string, text: string) => expect(lines.some((l) => l.startsWith(`Warning [${code}]`) && l.includes(text)), `${code} ${text}\n${r.stdout}`).toBe(true);
    has('DanglingParentRef', 'dangling.yaml (document 0): HTTPRoute shop/dangling spec.parentRefs[0]: Gateway "shop/nowhere" does not exist');
    has('BackendNotFound', 'missing.yaml (document 0): HTTPRoute shop/missing-backends spec.rules[0].backendRefs[0]: Service "shop/gone" does not exist');
    has('BackendNotFound', 'HTTPRoute shop/missing-backends spec.rules[1].backendRefs[0]: Service "shop/web" has no port 8443');
    has('RefNotPermitted', 'cross.yaml (document 0): HTTPRoute shop/cross spec.rules[0].backendRefs[0]');
    has('HostnameNotAdmitted', 'hostnames.yaml (document 0): HTTPRoute shop/elsewhere spec.hostnames');
    has('ShadowedRule', 'second.yaml (document 0): HTTPRoute shop/second spec.rules[0]: never matches');
    expect(lines.filter((l) => l.includes('): HTTPRoute shop/first '))).toEqual([]);
    expect(lines.at(-1)).toBe('0 errors, 6 warnings in 8 objects');
  });

  it('exits 0 on a clean folder', async () => {
    const r = await run(['analyze', '-f', join(dir, 'clean')]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toBe('No problems found in 3 objects\n');
  });

  it('finds nothing in the README quickstart\'s examples/', async () => {
    const r = await run(['analyze', '-f', join(ROOT, 'examples')]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^No problems found in \d+ objects\n$/);
  });

  it('reports what apply would refuse as errors, and answers JSON with the files', async () => {
    const bad = route('bad', `  parentRefs: [{name: edge}]
  rules: [{backendRefs: [{name: web, port: 99999}]}]
`);
    const r = await run(['analyze', '-f', '-', '-o', 'json'], { stdin: bad });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.errors).toEqual([expect.objectContaining({ code: 'InvalidObject', kind: 'HTTPRoute', name: 'bad', path: 'spec.rules[0].backendRefs[0].port', file: '<stdin>', document: 0 })]);
    // an object that does not validate is not analyzed further
    expect(out.warnings).toEqual([]);
  });

  it('with --server, references to stored objects resolve', async () => {
    expect((await run(['apply', '-f', '-'], { stdin: `${CLASS}---\n${EDGE}` })).code).toBe(0);
    const app = route('served', `  parentRefs: [{name: edge}]
  hostnames: [served.example.com]
  rules: [{backendRefs: [{name: web, port: 80}]}]
`);
    const offline = await run(['analyze', '-f', '-'], { stdin: app });
    expect(offline.code).toBe(1);
    expect(offline.stdout).toContain('Gateway "shop/edge" does not exist in the manifests');
    const online = await run(['analyze', '-f', '-', '--server'], { stdin: app });
    expect(online.code, online.stdout).toBe(0);
    expect(online.stdout).toBe('No problems found in 1 object (with the objects stored on the server)\n');
  });
});

describe('switchyard apply', () => {
  it('prints the server\'s warnings on stderr as Warning lines, and applies', async () => {
    const flawed = route('warned', `  parentRefs: [{name: edge}, {name: nowhere}]
  hostnames: [warned.example.com]
  rules: [{backendRefs: [{name: gone, port: 80}]}]
`);
    const r = await run(['apply', '-f', '-'], { stdin: flawed });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('HTTPRoute shop/warned created');
    expect(r.stderr.trim().split('\n')).toEqual([
      'Warning: HTTPRoute shop/warned spec.parentRefs[1]: Gateway "shop/nowhere" does not exist',
      'Warning: HTTPRoute shop/warned spec.rules[0].backendRefs[0]: Service "shop/gone" does not exist',
    ]);
    // the headers themselves, as Kubernetes sends them
    const res = await fetch(`${s.url}/api/v1/apply?dryRun=true&namespace=shop`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/yaml' }, body: flawed,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('warning')).toBe('299 - "HTTPRoute shop/warned spec.parentRefs[1]: Gateway \\"shop/nowhere\\" does not exist", 299 - "HTTPRoute shop/warned spec.rules[0].backendRefs[0]: Service \\"shop/gone\\" does not exist"');
  });

  it('an apply too large to analyze in one piece says so in its one warning', async () => {
    const items = Array.from({ length: 2001 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, namespace: 'big' }, data: { k: 'v' } }));
    const r = await s.api('POST', '/api/v1/apply?dryRun=true', { items });
    expect(r.status).toBe(200);
    expect(r.headers.get('warning')).toMatch(/^299 - "the apply holds 2001 objects, more than the 2000 the server analyzes .*"$/);
    // the cluster-scoped objects stored (a GatewayClass, Namespaces) are analyzed with it
    const small = await s.api('POST', '/api/v1/apply?dryRun=true', { items: items.slice(0, 1900) });
    expect(small.headers.get('warning')).toBeNull();
  });

  it('the objects stored in the namespaces an apply writes count towards what the server analyzes', async () => {
    const configMaps = (ns: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${from + i}`, namespace: ns }, data: { k: 'v' } }));
    expect((await s.api('POST', '/api/v1/apply', { items: configMaps('crowd', 1950) })).status).toBe(200);
    const over = await s.api('POST', '/api/v1/apply?dryRun=true', { items: configMaps('crowd', 60, 5000) });
    expect(over.status).toBe(200);
    expect(over.headers.get('warning')).toMatch(/^299 - "the apply's 60 objects and the (\d+) others stored in their namespaces are (\d+), more than the 2000 the server analyzes .*analyze --server.*"$/);
    const [, others, all] = /and the (\d+) others .* are (\d+),/.exec(over.headers.get('warning')!)!;
    expect(Number(others)).toBeGreaterThanOrEqual(1950);
    expect(Number(all)).toBe(Number(others) + 60);
    // the analysis stops reading once there are more than it would analyze
    expect((await s.api('POST', '/api/v1/apply', { items: configMaps('crowd', 100, 1950) })).status).toBe(200);
    const one = await s.api('POST', '/api/v1/apply?dryRun=true', { items: configMaps('crowd', 1, 9000) });
    expect(one.headers.get('warning')).toMatch(/^299 - "the apply's 1 object and the others stored in their namespaces are more than the 2000 the server analyzes /);
    // elsewhere the same object is analyzed, and warned about as before
    const elsewhere = await s.api('POST', '/api/v1/apply?dryRun=true', { items: [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'lost', namespace: 'quiet' }, spec: { parentRefs: [{ name: 'nowhere' }] } }] });
    expect(elsewhere.headers.get('warning')).toBe('299 - "HTTPRoute quiet/lost spec.parentRefs[0]: Gateway \\"quiet/nowhere\\" does not exist"');
  });

  it('YAML errors exit 1 with the file, line, column and the offending line; nothing is sent', async () => {
    const text = `apiVersion: v1\nkind: Service\nmetadata:\n  name: broken\n  name: shop\nspec: {ports: [{port: 80}]}\n`;
    writeFileSync(join(dir, 'broken.yaml'), text);
    for (const cmd of ['apply', 'analyze']) {
      const r = await run([cmd, '-f', join(dir, 'broken.yaml')]);
      expect(r.code, cmd).toBe(1);
      expect(r.stdout, cmd).toBe('');
      const [first, shown, caret] = r.stderr.split('\n');
      expect(first, cmd).toMatch(new RegExp(`^switchyard ${cmd}: .*broken\\.yaml:5:3: the YAML is not well-formed: Map keys must be unique$`));
      expect(shown, cmd).toBe('    5 |   name: shop');
      expect(caret, cmd).toBe('      |   ^');
    }
    expect((await run(['get', 'svc', 'broken'])).code).toBe(1);
    // the API, sent the same text, names the place too
    const api = await s.api('POST', '/api/v1/apply?namespace=shop', text, { 'content-type': 'application/yaml' });
    expect(api.status).toBe(400);
    expect(api.body.detail).toBe('document 0: the YAML is not well-formed: Map keys must be unique at line 5, column 3');
    expect(api.body.errors).toEqual([expect.objectContaining({ document: 0, line: 5, column: 3 })]);
    writeFileSync(join(dir, 'broken.json'), '{"apiVersion": "v1",\n "kind": "Service",,\n}');
    const json = await run(['apply', '-f', join(dir, 'broken.json')]);
    expect(json.code).toBe(1);
    expect(json.stderr).toMatch(/broken\.json:2:\d+: not valid JSON/);
    expect(json.stderr).toContain('    2 |  "kind": "Service",,');
  });

  it('an empty file, or one with only comments, is a clear error (exit 1)', async () => {
    writeFileSync(join(dir, 'empty.yaml'), '');
    writeFileSync(join(dir, 'comments.yaml'), '# nothing yet\n---\n');
    for (const cmd of ['apply', 'analyze']) {
      const empty = await run([cmd, '-f', join(dir, 'empty.yaml')]);
      expect(empty.code, cmd).toBe(1);
      expect(empty.stderr, cmd).toMatch(/empty\.yaml: the file is empty/);
      const comments = await run([cmd, '-f', join(dir, 'comments.yaml')]);
      expect(comments.code, cmd).toBe(1);
      expect(comments.stderr, cmd).toMatch(/comments\.yaml: the file holds no objects/);
    }
  });
});

describe('why an object has no status', () => {
  it('describe and the explain endpoint say it: another controller, no class, no Gateway, no parentRefs', async () => {
    const manifest = `apiVersion: ${G}
kind: GatewayClass
metadata: {name: theirs}
spec: {controllerName: example.com/other-controller}
---
apiVersion: ${G}
kind: Gateway
metadata: {name: foreign}
spec: {gatewayClassName: theirs, listeners: [{name: web, port: 80, protocol: HTTP}]}
---
apiVersion: ${G}
kind: Gateway
metadata: {name: classless}
spec: {gatewayClassName: nobody, listeners: [{name: web, port: 80, protocol: HTTP}]}
---
${route('orphan', `  rules: [{backendRefs: [{name: web, port: 80}]}]
`)}---
${route('astray', `  parentRefs: [{name: absent}, {name: foreign}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
`)}`;
    expect((await run(['apply', '-f', '-'], { stdin: manifest })).code).toBe(0);
    await reconciled(s);
    const cases: [string[], string[]][] = [
      [['gateway', 'foreign'], ['GatewayClassOfAnotherController: The Gateway is of GatewayClass "theirs", whose controller is "example.com/other-controller"']],
      [['gateway', 'classless'], ['GatewayClassNotFound: The Gateway names GatewayClass "nobody", which does not exist']],
      [['httproute', 'orphan'], ['NoParentRefs: The HTTPRoute has no parentRefs']],
      [['httproute', 'astray'], ['GatewayNotFound: spec.parentRefs[0] names Gateway "shop/absent", which does not exist', 'GatewayClassOfAnotherController: spec.parentRefs[1]: Gateway "shop/foreign" is of GatewayClass "theirs"']],
      [['gatewayclass', 'theirs'], ['GatewayClassOfAnotherController: GatewayClass "theirs" names controller "example.com/other-controller"']],
    ];
    for (const [args, why] of cases) {
      const r = await run(['describe', ...args]);
      expect(r.code, r.stderr).toBe(0);
      const after = r.stdout.split('Why no status:\n')[1] ?? '';
      const lines = after.trim().split('\n').map((l) => l.trim());
      expect(lines.length, r.stdout).toBe(why.length);
      why.forEach((w, i) => expect(lines[i], r.stdout).toContain(w));
    }
    const ours = await run(['describe', 'gateway', 'edge']);
    expect(ours.stdout).not.toContain('Why no status');
    const res = await s.api('GET', '/api/v1/namespaces/shop/httproutes/astray/explain');
    expect(res.status).toBe(200);
    expect(res.body.entries.map((e: { reason: string; parentRefIndex: number }) => [e.parentRefIndex, e.reason])).toEqual([[0, 'GatewayNotFound'], [1, 'GatewayClassOfAnotherController']]);
    expect((await s.api('GET', '/api/v1/namespaces/shop/httproutes/nope/explain')).status).toBe(404);
    expect((await s.api('POST', '/api/v1/namespaces/shop/httproutes/astray/explain', {})).status).toBe(405);
  }, 60_000);
});
