// A rule whose ExtensionRef filter names a kind this implementation does not serve: reported on the
// route (Accepted=False/UnsupportedValue when every rule has one, PartiallyInvalid when some do),
// and the requests it would serve answered 500, never forwarded with the filter skipped.
import { describe, expect, it } from 'vitest';
import { ConformanceStore, CONTROLLER, NOW, loadBase } from './conformance-requests-harness';
import { translate } from '../../src/core/translate';
import { resolve } from '../../src/core/resolve';

const gw = { namespace: 'gateway-conformance-infra', name: 'same-namespace' };
const ext = { type: 'ExtensionRef', extensionRef: { group: 'example.com', kind: 'Auth', name: 'a' } };

function run(rules: any[]) {
  const store = new ConformanceStore();
  for (const o of loadBase()) store.apply(o);
  store.apply({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'ext', namespace: gw.namespace },
    spec: { parentRefs: [{ name: gw.name }], rules } });
  const t = translate(store.world(), gw, { controllerName: CONTROLLER, now: NOW })!;
  const conds = [...t.routeParents].find((r) => r.name === 'ext')!.parents[0].conditions;
  const cond = (type: string) => conds.find((c: any) => c.type === type);
  const ask = (path: string) => resolve(t.table, { protocol: 'HTTP', port: 80, path });
  return { cond, ask };
}

const backend = { backendRefs: [{ name: 'infra-backend-v1', port: 8080 }] };

describe('ExtensionRef filters of kinds not served', () => {
  it('every rule has one: the route is not accepted (UnsupportedValue) and its requests get 500', () => {
    const { cond, ask } = run([{ matches: [{ path: { type: 'PathPrefix', value: '/ext' } }], filters: [ext], ...backend }]);
    expect(cond('Accepted')).toMatchObject({ status: 'False', reason: 'UnsupportedValue' });
    const r = ask('/ext');
    expect(r.forwarded).toBe(false);
    expect(r.statusCode).toBe(500);
  });

  it('some rules have one: PartiallyInvalid, those rules answer 500 and the others forward', () => {
    const { cond, ask } = run([
      { matches: [{ path: { type: 'PathPrefix', value: '/ext' } }], filters: [ext], ...backend },
      { matches: [{ path: { type: 'PathPrefix', value: '/plain' } }], ...backend },
    ]);
    expect(cond('Accepted')).toMatchObject({ status: 'True' });
    expect(cond('PartiallyInvalid')).toMatchObject({ status: 'True', reason: 'UnsupportedValue' });
    expect(ask('/ext').statusCode).toBe(500);
    expect(ask('/plain').forwarded).toBe(true);
  });

  it('one on a backendRef counts for its rule', () => {
    const { cond } = run([{ matches: [{ path: { type: 'PathPrefix', value: '/ext' } }], backendRefs: [{ name: 'infra-backend-v1', port: 8080, filters: [ext] }] }]);
    expect(cond('Accepted')).toMatchObject({ status: 'False', reason: 'UnsupportedValue' });
  });
});
