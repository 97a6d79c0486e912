// Server-side apply by several field managers over HTTP, as GitOps tools send it (a YAML body,
// application/apply-patch+yaml, ?fieldManager=argocd-controller, kustomize-controller, helm,
// kubectl): the same manifest is shared, not a conflict; another value is a 409 Status in
// kube-apiserver's words naming the other managers; force moves the field. Then the real kubectl
// (1.32) moving an object from client-side to server-side apply, and a second kubectl manager.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startTestServer, type TestServer } from '../support/server';
import { kubectlFor, kubectlMissing, type Kubectl } from '../support/kubectl';
import { tempDir } from '../support/temp-dir';

const GW = 'gateway.networking.k8s.io';
const NS = 'gitops';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const routes = `/apis/${GW}/v1/namespaces/${NS}/httproutes`;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

let s: TestServer;

const route = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: `${GW}/v1`, kind: 'HTTPRoute', metadata: { name, namespace: NS },
  spec: {
    parentRefs: [{ name: 'edge' }],
    hostnames: ['store.example'],
    rules: [{ matches: [{ path: { value: '/api' } }], backendRefs: [{ name: 'api', port: 8080 }] }],
    ...spec,
  },
});
const applyAs = (name: string, manager: string, body: object, query = '') =>
  s.api('PATCH', `${routes}/${name}?fieldManager=${manager}${query}`, stringify(body), APPLY);
const managersOf = (o: any) => (o.metadata.managedFields ?? []).map((m: any) => `${m.manager}/${m.operation}`).sort();
const eventCount = async () => Number((await s.running.ctx.db.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM events'))[0].n);

beforeAll(async () => {
  s = await startTestServer({ rateLimitPerSecond: 0 });
  expect((await s.api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await s?.close();
});

describe('the field managers of GitOps tools over HTTP', () => {
  it('argocd-controller, kustomize-controller, helm and kubectl apply one manifest: no conflict, all four listed with Apply', async () => {
    const first = await applyAs('store', 'argocd-controller', route('store'));
    expect(first.status, first.text).toBe(201);
    // stored with the CRD's defaults, which the manifest leaves out
    expect(first.body.spec.parentRefs).toEqual([{ group: GW, kind: 'Gateway', name: 'edge' }]);
    expect(first.body.spec.rules[0].backendRefs[0]).toMatchObject({ kind: 'Service', weight: 1 });
    for (const m of ['kustomize-controller', 'helm', 'kubectl']) {
      const r = await applyAs('store', m, route('store'));
      expect(r.status, `${m}: ${r.text}`).toBe(200);
      expect(r.body.spec).toEqual(first.body.spec);
    }
    const live = (await s.api('GET', `${routes}/store`)).body;
    expect(managersOf(live)).toEqual(['argocd-controller/Apply', 'helm/Apply', 'kubectl/Apply', 'kustomize-controller/Apply']);
    for (const m of live.metadata.managedFields) expect(m.fieldsV1).toEqual({ 'f:spec': { 'f:hostnames': {}, 'f:parentRefs': {}, 'f:rules': {} } });
    // each applies it again: no write at all
    const before = await eventCount();
    for (const m of ['argocd-controller', 'kustomize-controller', 'helm', 'kubectl']) {
      const again = await applyAs('store', m, route('store'));
      expect(again.status).toBe(200);
      expect(again.body.metadata.resourceVersion).toBe(live.metadata.resourceVersion);
    }
    expect(await eventCount()).toBe(before);
  });

  it('helm changing a value is a 409 naming every other manager and the field; nothing is written', async () => {
    const before = await eventCount();
    const clash = await applyAs('store', 'helm', route('store', { hostnames: ['shop.example'] }));
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Conflict', code: 409 });
    expect(clash.body.message).toBe('Apply failed with 3 conflicts: conflicts with "argocd-controller":\n- .spec.hostnames\n'
      + 'conflicts with "kubectl":\n- .spec.hostnames\nconflicts with "kustomize-controller":\n- .spec.hostnames');
    expect(clash.body.details.causes).toEqual(['argocd-controller', 'kubectl', 'kustomize-controller'].map((m) =>
      ({ reason: 'FieldManagerConflict', message: `conflict with "${m}"`, field: '.spec.hostnames' })));
    expect(await eventCount()).toBe(before);
    // a weight of 2 where the others have the default 1 is another value of the atomic rules
    const weight = await applyAs('store', 'kustomize-controller', route('store', { rules: [{ matches: [{ path: { value: '/api' } }], backendRefs: [{ name: 'api', port: 8080, weight: 2 }] }] }));
    expect(weight.status).toBe(409);
    expect(weight.body.details.causes.map((c: any) => `${c.message} ${c.field}`)).toEqual([
      'conflict with "argocd-controller" .spec.rules', 'conflict with "helm" .spec.rules', 'conflict with "kubectl" .spec.rules']);
  });

  it('force=true moves the field to helm; the others keep the fields they share', async () => {
    const forced = await applyAs('store', 'helm', route('store', { hostnames: ['shop.example'] }), '&force=true');
    expect(forced.status, forced.text).toBe(200);
    expect(forced.body.spec.hostnames).toEqual(['shop.example']);
    const byManager = Object.fromEntries(forced.body.metadata.managedFields.map((m: any) => [m.manager, Object.keys(m.fieldsV1['f:spec']).sort()]));
    expect(byManager).toEqual({
      helm: ['f:hostnames', 'f:parentRefs', 'f:rules'],
      'argocd-controller': ['f:parentRefs', 'f:rules'], kubectl: ['f:parentRefs', 'f:rules'], 'kustomize-controller': ['f:parentRefs', 'f:rules'],
    });
    const back = await applyAs('store', 'argocd-controller', route('store'));
    expect(back.status).toBe(409);
    expect(back.body.message).toBe('Apply failed with 1 conflict: conflict with "helm": .spec.hostnames');
  });

  it('a field one manager stops applying stays while another applies it, and goes with the last one', async () => {
    const { hostnames: _h, ...noHostnames } = route('store', { hostnames: ['shop.example'] }).spec;
    const kept = await applyAs('store', 'argocd-controller', { ...route('store'), spec: { ...noHostnames, parentRefs: undefined } });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.spec.parentRefs).toHaveLength(1);
    const helmOnly = await applyAs('store', 'helm', { ...route('store'), spec: { rules: noHostnames.rules, parentRefs: noHostnames.parentRefs } });
    expect(helmOnly.status, helmOnly.text).toBe(200);
    expect(helmOnly.body.spec).not.toHaveProperty('hostnames');
  });

  it('a Secret\'s stringData applied by a second manager is no conflict over data, and is stored in data', async () => {
    const path = `/k8s/api/v1/namespaces/${NS}/secrets/db`;
    const secret = (more: object) => stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: NS }, type: 'Opaque', ...more });
    expect((await s.api('PATCH', `${path}?fieldManager=helm`, secret({ data: { password: btoa('a') } }), APPLY)).status).toBe(201);
    const r = await s.api('PATCH', `${path}?fieldManager=argocd-controller`, secret({ stringData: { password: 'b' } }), APPLY);
    expect(r.status, r.text).toBe(200);
    expect((await s.api('GET', path)).body.data.password).toBe(btoa('b'));
  });

  it('Gateway listeners merge by name: the same listener is shared, another port of it conflicts', async () => {
    const gw = (listeners: object[]) => stringify({ apiVersion: `${GW}/v1`, kind: 'Gateway', metadata: { name: 'edge', namespace: NS }, spec: { gatewayClassName: 'switchyard', listeners } });
    const path = `/apis/${GW}/v1/namespaces/${NS}/gateways/edge`;
    expect((await s.api('PATCH', `${path}?fieldManager=argocd-controller`, gw([{ name: 'http', port: 80, protocol: 'HTTP' }, { name: 'https', port: 443, protocol: 'HTTPS', tls: { certificateRefs: [{ name: 'cert' }] } }]), APPLY)).status).toBe(201);
    const shared = await s.api('PATCH', `${path}?fieldManager=kustomize-controller`, gw([{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'Same' } } }]), APPLY);
    expect(shared.status, shared.text).toBe(200);
    const clash = await s.api('PATCH', `${path}?fieldManager=kustomize-controller`, gw([{ name: 'http', port: 8080, protocol: 'HTTP' }]), APPLY);
    expect(clash.status).toBe(409);
    expect(clash.body.message).toBe('Apply failed with 1 conflict: conflict with "argocd-controller": .spec.listeners[name="http"].port');
  });
});

const missing = kubectlMissing();
if (missing) console.log(`test/int/kube-ssa-managers.test.ts: the kubectl tests are skipped: ${missing}`);

describe.skipIf(missing !== null)('kubectl moving from client-side to server-side apply', () => {
  let k: Kubectl;
  let dir: string;
  const file = (name: string, obj: object) => {
    const f = join(dir, name);
    writeFileSync(f, stringify(obj));
    return f;
  };
  const get = async (name: string) => {
    const r = await k.run(['get', 'httproute', name, '-n', NS, '-o', 'json', '--show-managed-fields']);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };
  beforeAll(() => {
    k = kubectlFor(s, 'test-admin-token-0123456789', 'admin');
    dir = tempDir('sy-ssa-manifests-');
  });

  it('apply, then apply --server-side of the same file: no conflict, kubectl owns the fields; of a reduced file: the field is removed', async () => {
    const full = file('web.yaml', route('web'));
    const csa = await k.run(['apply', '-f', full]);
    expect(csa.code, csa.stderr).toBe(0);
    const created = await get('web');
    expect(managersOf(created)).toEqual(['kubectl-client-side-apply/Update']);
    expect(created.metadata.annotations[LAST_APPLIED]).toBeDefined();

    const ssa = await k.run(['apply', '--server-side', '-f', full]);
    expect(ssa.code, ssa.stderr).toBe(0);
    expect(ssa.stdout).toContain(`httproute.${GW}/web serverside-applied`);
    const moved = await get('web');
    expect(moved.spec).toEqual(created.spec);
    // kubectl gave the client-side manager's fields to its own Apply entry, the annotation to kubectl-last-applied
    expect(managersOf(moved)).toEqual(['kubectl-last-applied/Apply', 'kubectl/Apply']);
    const kubectlFields = moved.metadata.managedFields.find((m: any) => m.manager === 'kubectl').fieldsV1;
    expect(Object.keys(kubectlFields['f:spec']).sort()).toEqual(['f:hostnames', 'f:parentRefs', 'f:rules']);

    const { hostnames: _h, ...reducedSpec } = route('web').spec;
    const reduced = file('web-reduced.yaml', { ...route('web'), spec: reducedSpec });
    const cut = await k.run(['apply', '--server-side', '-f', reduced]);
    expect(cut.code, cut.stderr).toBe(0);
    const after = await get('web');
    expect(after.spec).not.toHaveProperty('hostnames');
    expect(after.spec.rules).toEqual(created.spec.rules);
    expect(JSON.parse(after.metadata.annotations[LAST_APPLIED]).spec).not.toHaveProperty('hostnames');
    // and a client-side apply of the reduced file afterwards (the way back kubectl documents)
    // diffs against the annotation the server-side apply kept in step: hostnames stay gone
    const back = await k.run(['apply', '-f', reduced]);
    expect(back.code, back.stderr).toBe(0);
    expect((await get('web')).spec).toEqual(after.spec);
  }, 60_000);

  it('apply, then apply --server-side of a changed file: no conflict on a field the last-applied configuration holds', async () => {
    expect((await k.run(['apply', '-f', file('cart.yaml', route('cart'))])).code).toBe(0);
    const changed = await k.run(['apply', '--server-side', '-f', file('cart-changed.yaml', route('cart', { hostnames: ['cart.example'] }))]);
    expect(changed.code, changed.stderr).toBe(0);
    expect((await get('cart')).spec.hostnames).toEqual(['cart.example']);
  }, 60_000);

  it('a field changed by kubectl patch after the client-side apply is a conflict; --force-conflicts takes it', async () => {
    const f = file('pay.yaml', route('pay'));
    expect((await k.run(['apply', '-f', f])).code).toBe(0);
    const p = await k.run(['patch', 'httproute', 'pay', '-n', NS, '--type=merge', '-p', '{"spec":{"hostnames":["patched.example"]}}']);
    expect(p.code, p.stderr).toBe(0);
    const clash = await k.run(['apply', '--server-side', '-f', f]);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain(`conflict with "kubectl-patch" using ${GW}/v1: .spec.hostnames`);
    const forced = await k.run(['apply', '--server-side', '--force-conflicts', '-f', f]);
    expect(forced.code, forced.stderr).toBe(0);
    expect((await get('pay')).spec.hostnames).toEqual(['store.example']);
  }, 60_000);

  it('kubectl apply --server-side --field-manager=argocd-controller of what helm applied: shared, no conflict', async () => {
    expect((await applyAs('shared', 'helm', route('shared'))).status).toBe(201);
    const r = await k.run(['apply', '--server-side', '--field-manager=argocd-controller', '-f', file('shared.yaml', route('shared'))]);
    expect(r.code, r.stderr).toBe(0);
    expect(managersOf(await get('shared'))).toEqual(['argocd-controller/Apply', 'helm/Apply']);
    const changed = file('shared-changed.yaml', route('shared', { hostnames: ['other.example'] }));
    const clash = await k.run(['apply', '--server-side', '--field-manager=argocd-controller', '-f', changed]);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain('conflict with "helm": .spec.hostnames');
    const forced = await k.run(['apply', '--server-side', '--field-manager=argocd-controller', '--force-conflicts', '-f', changed]);
    expect(forced.code, forced.stderr).toBe(0);
    const after = await get('shared');
    expect(after.spec.hostnames).toEqual(['other.example']);
    const helm = after.metadata.managedFields.find((m: any) => m.manager === 'helm');
    expect(Object.keys(helm.fieldsV1['f:spec']).sort()).toEqual(['f:parentRefs', 'f:rules']);
  }, 60_000);
});
