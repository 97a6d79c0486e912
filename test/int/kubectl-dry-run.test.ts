// The real kubectl (v1.32 here) on what a dry run, a whoami, a can-i --list and a duplicated key do:
// create, apply and delete with --dry-run=server write nothing (the events table counted before and
// after each); `auth whoami` prints the token's name and groups; `auth can-i --list` prints what a
// developer of one namespace may do there and elsewhere, and an admin everything; a body with a key
// given twice is warned about by default and refused with fieldValidation=Strict. Skipped, saying
// why, where kubectl is absent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mintToken, startTestServer, type TestServer } from '../support/server';
import { kubectlFor, kubectlMissing, type Kubectl } from '../support/kubectl';
import { tempDir } from '../support/temp-dir';

const missing = kubectlMissing();
if (missing) console.log(`test/int/kubectl-dry-run.test.ts skipped: ${missing}`);

const GW = 'gateway.networking.k8s.io';
let s: TestServer;
let admin: Kubectl;
let dev: Kubectl;
let dir: string;

const eventCount = async () => Number((await s.running.ctx.db.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM events'))[0].n);

function file(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

const routeYaml = (name: string, hostname: string) => `apiVersion: ${GW}/v1
kind: HTTPRoute
metadata:
  name: ${name}
  namespace: shop
spec:
  parentRefs:
  - name: gw
  hostnames:
  - ${hostname}
`;

describe.skipIf(missing !== null)('kubectl', () => {
  beforeAll(async () => {
    s = await startTestServer({ rateLimitPerSecond: 0 });
    admin = kubectlFor(s, 'test-admin-token-0123456789', 'admin');
    dev = kubectlFor(s, await mintToken(s, { name: 'dev-shop', role: 'developer', namespaces: ['shop'] }), 'dev-shop');
    dir = tempDir('sy-kubectl-dry-');
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('create, apply and delete with --dry-run=server write nothing', async () => {
    const created = file('created.yaml', routeYaml('storefront', 'shop.example'));
    let before = await eventCount();
    const create = await dev.run(['create', '--dry-run=server', '-f', created, '-o', 'yaml']);
    expect(create.code, create.stderr).toBe(0);
    // what the create would have stored: defaults, a uid, generation 1
    expect(create.stdout).toContain('generation: 1');
    expect(create.stdout).toMatch(/uid: [0-9a-f-]{36}/);
    expect(create.stdout).toContain(`group: ${GW}`);
    expect(await eventCount()).toBe(before);
    expect((await dev.run(['get', 'httproute', 'storefront', '-n', 'shop'])).stderr).toContain('NotFound');

    const applied = await dev.run(['apply', '--dry-run=server', '-f', created]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`httproute.${GW}/storefront created (server dry run)`);
    expect(await eventCount()).toBe(before);

    expect((await dev.run(['apply', '-f', created])).code).toBe(0);
    before = await eventCount();
    const changed = file('changed.yaml', routeYaml('storefront', 'changed.example'));
    const reapplied = await dev.run(['apply', '--dry-run=server', '-f', changed]);
    expect(reapplied.code, reapplied.stderr).toBe(0);
    expect(reapplied.stdout).toContain(`httproute.${GW}/storefront configured (server dry run)`);
    const ssa = await dev.run(['apply', '--server-side', '--dry-run=server', '-f', changed]);
    expect(ssa.code, ssa.stderr).toBe(0);
    const deleted = await dev.run(['delete', '--dry-run=server', '-f', created]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain(`httproute.${GW} "storefront" deleted (server dry run)`);
    expect(await eventCount()).toBe(before);
    const live = await dev.run(['get', 'httproute', 'storefront', '-n', 'shop', '-o', 'jsonpath={.spec.hostnames[0]}']);
    expect(live.stdout).toBe('shop.example');

    // refused as the write would be: it exists
    const again = await dev.run(['create', '--dry-run=server', '-f', created]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('AlreadyExists');
    expect(await eventCount()).toBe(before);
  }, 120_000);

  it('auth whoami prints the token\'s name and groups', async () => {
    const me = await dev.run(['auth', 'whoami']);
    expect(me.code, me.stderr).toBe(0);
    expect(me.stdout).toMatch(/Username\s+dev-shop/);
    expect(me.stdout).toMatch(/Groups\s+\[switchyard:developer system:authenticated\]/);
    expect(me.stdout).toMatch(/Extra: switchyard.dev\/namespaces\s+\[shop\]/);
    const root = await admin.run(['auth', 'whoami', '-o', 'json']);
    expect(JSON.parse(root.stdout).status.userInfo).toMatchObject({ username: 'admin', groups: ['switchyard:admin', 'system:authenticated'] });
  }, 60_000);

  it('auth can-i --list prints what a developer may do in its namespace and elsewhere, and an admin everything', async () => {
    const row = (out: string, resource: string) => out.split('\n').find((l) => l.split(/\s+/)[0] === resource) ?? '';
    const shop = await dev.run(['auth', 'can-i', '--list', '-n', 'shop']);
    expect(shop.code, shop.stderr).toBe(0);
    expect(row(shop.stdout, `httproutes.${GW}`)).toContain('[get list watch create update patch delete]');
    expect(row(shop.stdout, `gateways.${GW}`)).toContain('[get list watch]');
    expect(row(shop.stdout, 'secrets')).toContain('[get list watch]');
    expect(row(shop.stdout, 'selfsubjectrulesreviews.authorization.k8s.io')).toContain('[create]');
    const other = await dev.run(['auth', 'can-i', '--list', '-n', 'other']);
    expect(row(other.stdout, `httproutes.${GW}`)).toBe('');
    expect(row(other.stdout, `gateways.${GW}`)).toContain('[get list watch]');
    const all = await admin.run(['auth', 'can-i', '--list']);
    expect(all.code, all.stderr).toBe(0);
    expect(row(all.stdout, '*.*')).toContain('[*]');
    // and each answer agrees with can-i's own
    expect((await dev.run(['auth', 'can-i', 'create', 'httproutes', '-n', 'shop'])).stdout.trim()).toBe('yes');
    expect((await dev.run(['auth', 'can-i', 'create', 'httproutes', '-n', 'other'])).stdout).toMatch(/^no\b/);
  }, 60_000);

  it('a body with a key given twice: a warning by default, refused with fieldValidation=Strict', async () => {
    // kubectl create -f decodes a file before sending it (the last of two keys wins in kubectl
    // itself); --raw sends the bytes as they are, as any client that writes JSON by hand does
    const dup = file('dup.json', `{"apiVersion":"${GW}/v1","kind":"HTTPRoute","metadata":{"name":"twice","labels":{"app":"a","app":"b"}},"spec":{"parentRefs":[{"name":"gw"}]}}`);
    const before = await eventCount();
    const strict = await dev.run(['create', '--raw', `/apis/${GW}/v1/namespaces/shop/httproutes?fieldValidation=Strict`, '-f', dup]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('strict decoding error: duplicate field "metadata.labels.app"');
    expect(await eventCount()).toBe(before);
    const warned = await dev.run(['create', '--raw', `/apis/${GW}/v1/namespaces/shop/httproutes`, '-f', dup]);
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toContain('Warning: duplicate field "metadata.labels.app"');
    expect(await eventCount()).toBe(before + 1);
  }, 60_000);
});
