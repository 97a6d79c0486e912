// The static analysis (src/core/analyze): each kind of warning, and the silence of a clean manifest.
import { describe, it, expect } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { analyzeManifests, grpcMatchCovers, matchCovers } from '../../src/core/analyze';
import { validateObject } from '../../src/core/validate';
import { compileGRPCMatch, compileHTTPMatch } from '../../src/core/compile/matches';
import type { K8sObject } from '../../src/core/model/objects';

const CONTROLLER = 'switchyard.dev/gateway-controller';

/** Objects as apply stores them: defaulted, and valid (a test manifest that is not fails here). */
function objects(text: string): K8sObject[] {
  return parseAllDocuments(text).map((d) => d.toJS()).filter(Boolean).map((raw) => {
    const { object, errors } = validateObject(raw);
    expect(errors, JSON.stringify(raw)).toEqual([]);
    return object as K8sObject;
  });
}

const EDGE = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: edge, namespace: shop }
spec:
  gatewayClassName: switchyard
  listeners:
    - { name: web, port: 80, protocol: HTTP, hostname: "*.example.com" }
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: shop }
spec: { ports: [{ port: 8080 }] }
`;

const route = (name: string, spec: string, extra = '') => `
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: ${name}, namespace: shop${extra} }
spec:
${spec}`;

const analyze = (text: string, stored?: string) =>
  analyzeManifests({ manifest: objects(text), stored: stored === undefined ? undefined : objects(stored), controllerName: CONTROLLER });
const codes = (text: string, stored?: string) => analyze(text, stored).map((w) => `${w.code} ${w.kind}/${w.name} ${w.path}`);

describe('analyze', () => {
  it('finds nothing in a manifest whose references all resolve', () => {
    const text = EDGE + route('shop', `
  parentRefs: [{ name: edge }]
  hostnames: [shop.example.com]
  rules: [{ backendRefs: [{ name: web, port: 8080 }] }]`);
    expect(analyze(text)).toEqual([]);
  });

  it('names a BackendTLSPolicy that applies to nothing, loses a conflict, or has no usable CA; a sound one is silent', () => {
    const policy = (name: string, target: string, validation: string) => `
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: { name: ${name}, namespace: shop }
spec:
  targetRefs: [${target}]
  validation: ${validation}`;
    const system = '{ hostname: web.shop.example, wellKnownCACertificates: System }';
    expect(codes(EDGE + policy('ok', "{ group: '', kind: Service, name: web }", system))).toEqual([]);
    expect(codes(EDGE
      + policy('a-nothing', "{ group: '', kind: Service, name: gone }", system)
      + policy('b-port', "{ group: '', kind: Service, name: web, sectionName: https }", system)
      + policy('c-first', "{ group: '', kind: Service, name: web }", system)
      + policy('d-second', "{ group: '', kind: Service, name: web }", system)
      + policy('e-no-ca', "{ group: '', kind: Service, name: web, sectionName: http }", "{ hostname: web.shop.example, caCertificateRefs: [{ group: '', kind: ConfigMap, name: missing }] }"),
    )).toEqual([
      'PolicyProblem BackendTLSPolicy/a-nothing spec.targetRefs[0]',
      'PolicyProblem BackendTLSPolicy/b-port spec.targetRefs[0].sectionName',
      'PolicyProblem BackendTLSPolicy/d-second spec.targetRefs',
      'PolicyProblem BackendTLSPolicy/e-no-ca spec.targetRefs[0].sectionName',
      'PolicyProblem BackendTLSPolicy/e-no-ca spec.validation',
      'PolicyProblem BackendTLSPolicy/e-no-ca spec.validation.caCertificateRefs',
    ]);
  });

  it('names a parentRef to a Gateway that does not exist, and one no listener takes', () => {
    const text = EDGE + route('lost', `
  parentRefs: [{ name: nowhere }, { name: edge, sectionName: https }]
  rules: [{ backendRefs: [{ name: web, port: 8080 }] }]`);
    const warnings = analyze(text);
    expect(warnings.map((w) => `${w.code} ${w.path}`)).toEqual(['DanglingParentRef spec.parentRefs[0]', 'DanglingParentRef spec.parentRefs[1]']);
    expect(warnings[0].message).toBe('HTTPRoute shop/lost spec.parentRefs[0]: Gateway "shop/nowhere" does not exist in the manifests');
    expect(warnings[1].message).toMatch(/has no listener named "https"/);
  });

  it('takes ListenerSets as parents, and puts a ListenerSet listener\'s warning on the ListenerSet', () => {
    const sets = `
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: open, namespace: shop }
spec:
  gatewayClassName: switchyard
  allowedListeners: { namespaces: { from: Same } }
  listeners: [{ name: web, port: 80, protocol: HTTP, hostname: www.example.com }]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: { name: extra, namespace: shop }
spec:
  parentRef: { name: open }
  listeners:
    - { name: blog, port: 80, protocol: HTTP, hostname: blog.example.com }
    - { name: taken, port: 80, protocol: HTTP, hostname: www.example.com }
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: { name: refused, namespace: shop }
spec:
  parentRef: { name: edge }
  listeners: [{ name: x, port: 80, protocol: HTTP, hostname: x.example.com }]
`;
    const text = EDGE + sets + route('blog', `
  parentRefs: [{ group: gateway.networking.k8s.io, kind: ListenerSet, name: extra, sectionName: blog }, { group: gateway.networking.k8s.io, kind: ListenerSet, name: gone }]
  rules: [{ backendRefs: [{ name: web, port: 8080 }] }]`);
    const warnings = analyze(text);
    expect(warnings.map((w) => `${w.code} ${w.kind}/${w.name} ${w.path}`)).toEqual([
      'ListenerProblem ListenerSet/extra spec.listeners[1]',
      'DanglingParentRef ListenerSet/refused spec.parentRef',
      'DanglingParentRef HTTPRoute/blog spec.parentRefs[1]',
    ]);
    expect(warnings[0].message).toMatch(/HostnameConflict/);
    expect(warnings[1].message).toMatch(/allows no ListenerSets/);
    expect(warnings[2].message).toMatch(/ListenerSet "shop\/gone" does not exist in the manifests/);
  });

  it('does not call a parentRef dangling when the Gateway is stored', () => {
    const text = route('r', `
  parentRefs: [{ name: edge }]
  hostnames: [shop.example.com]
  rules: [{ backendRefs: [{ name: web, port: 8080 }] }]`);
    const classes = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: { name: switchyard }
spec: { controllerName: ${CONTROLLER} }
---` + EDGE;
    expect(codes(text, classes)).toEqual([]);
    expect(codes(text, '')).toEqual(['DanglingParentRef HTTPRoute/r spec.parentRefs[0]', 'BackendNotFound HTTPRoute/r spec.rules[0].backendRefs[0]']);
  });

  it('names backendRefs to a missing Service and to a port the Service lacks', () => {
    const text = EDGE + route('r', `
  parentRefs: [{ name: edge }]
  hostnames: [shop.example.com]
  rules:
    - backendRefs: [{ name: gone, port: 80 }]
    - backendRefs: [{ name: web, port: 9090 }]`);
    const warnings = analyze(text);
    expect(warnings.map((w) => `${w.code} ${w.path}`)).toEqual(['BackendNotFound spec.rules[0].backendRefs[0]', 'BackendNotFound spec.rules[1].backendRefs[0]']);
    expect(warnings[0].message).toMatch(/Service "shop\/gone" does not exist/);
    expect(warnings[1].message).toMatch(/Service "shop\/web" has no port 9090/);
  });

  it('names a reference into another namespace that no ReferenceGrant allows, and is quiet once one does', () => {
    const other = `
---
apiVersion: v1
kind: Service
metadata: { name: db, namespace: data }
spec: { ports: [{ port: 5432 }] }`;
    const text = EDGE + other + route('r', `
  parentRefs: [{ name: edge }]
  hostnames: [shop.example.com]
  rules: [{ backendRefs: [{ name: db, namespace: data, port: 5432 }] }]`);
    expect(codes(text)).toEqual(['RefNotPermitted HTTPRoute/r spec.rules[0].backendRefs[0]']);
    const grant = `
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: { name: shop-to-db, namespace: data }
spec:
  from: [{ group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop }]
  to: [{ group: "", kind: Service }]`;
    expect(codes(text + grant)).toEqual([]);
  });

  it('names a listener certificate in another namespace without a grant', () => {
    const text = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: tls, namespace: shop }
spec:
  gatewayClassName: switchyard
  listeners:
    - name: https
      port: 443
      protocol: HTTPS
      tls: { certificateRefs: [{ name: cert, namespace: certs }] }`;
    const warnings = analyze(text);
    expect(warnings.map((w) => `${w.code} ${w.path}`)).toEqual(['RefNotPermitted spec.listeners[0]']);
  });

  it('names hostnames no listener admits: the whole route, or one hostname of several', () => {
    const text = EDGE + route('none', `
  parentRefs: [{ name: edge }]
  hostnames: [shop.example.org]
  rules: [{ backendRefs: [{ name: web, port: 8080 }] }]`) + route('some', `
  parentRefs: [{ name: edge }]
  hostnames: [shop.example.com, shop.example.org]
  rules: [{ backendRefs: [{ name: web, port: 8080 }] }]`);
    const warnings = analyze(text);
    expect(warnings.map((w) => `${w.code} ${w.name} ${w.path}`)).toEqual(['HostnameNotAdmitted none spec.hostnames', 'HostnameNotAdmitted some spec.hostnames[1]']);
    expect(warnings[1].message).toMatch(/"shop.example.org" is admitted by no listener of Gateway "shop\/edge"/);
  });

  it('names a rule every match of which an earlier-precedence rule of another route wins', () => {
    const older = ', creationTimestamp: "2026-01-01T00:00:00Z"';
    const newer = ', creationTimestamp: "2026-06-01T00:00:00Z"';
    const text = EDGE + route('first', `
  parentRefs: [{ name: edge }]
  hostnames: [shop.example.com]
  rules: [{ matches: [{ path: { type: PathPrefix, value: /api } }], backendRefs: [{ name: web, port: 8080 }] }]`, older) + route('late', `
  parentRefs: [{ name: edge }]
  hostnames: [shop.example.com]
  rules:
    - matches: [{ path: { type: PathPrefix, value: /api/v1 } }]
      backendRefs: [{ name: web, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /api } }]
      backendRefs: [{ name: web, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /api }, headers: [{ name: x-canary, value: "1" }] }]
      backendRefs: [{ name: web, port: 8080 }]
    - matches: [{ path: { type: PathPrefix, value: /api } }, { path: { type: Exact, value: /status } }]
      backendRefs: [{ name: web, port: 8080 }]`, newer);
    const warnings = analyze(text);
    // rule 0 is more specific, rule 2 asks for more, rule 3 has a match no one else takes
    expect(warnings.map((w) => `${w.code} ${w.name} ${w.path}`)).toEqual(['ShadowedRule late spec.rules[1]']);
    expect(warnings[0].message).toMatch(/won by HTTPRoute "shop\/first" rule 0/);
  });

  it('names a GRPCRoute rule that another route\'s broader earlier rule wins', () => {
    const grpc = (name: string, ts: string, rules: string) => `
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: { name: ${name}, namespace: shop, creationTimestamp: "${ts}" }
spec:
  parentRefs: [{ name: edge }]
  hostnames: [rpc.example.com]
  rules:
${rules}`;
    const text = EDGE + grpc('catalog', '2026-01-01T00:00:00Z', `
    - matches: [{ method: { service: shop.Catalog, method: List } }]
      backendRefs: [{ name: web, port: 8080 }]`) + grpc('late', '2026-06-01T00:00:00Z', `
    - matches: [{ method: { service: shop.Catalog, method: List } }]
      backendRefs: [{ name: web, port: 8080 }]
    - matches: [{ method: { service: shop.Catalog, method: Get } }]
      backendRefs: [{ name: web, port: 8080 }]`);
    const warnings = analyze(text);
    expect(warnings.map((w) => `${w.code} ${w.kind}/${w.name} ${w.path}`)).toEqual(['ShadowedRule GRPCRoute/late spec.rules[0]']);
    expect(warnings[0].message).toMatch(/won by GRPCRoute "shop\/catalog" rule 0/);
  });

  it('does not call a rule shadowed when it wins on a hostname the other route does not serve', () => {
    const text = EDGE + route('a', `
  parentRefs: [{ name: edge }]
  hostnames: [a.example.com]
  rules: [{ backendRefs: [{ name: web, port: 8080 }] }]`, ', creationTimestamp: "2026-01-01T00:00:00Z"') + route('b', `
  parentRefs: [{ name: edge }]
  hostnames: [a.example.com, b.example.com]
  rules: [{ backendRefs: [{ name: web, port: 8080 }] }]`, ', creationTimestamp: "2026-06-01T00:00:00Z"');
    expect(codes(text)).toEqual([]);
  });

  it('with what is stored: a Gateway of a missing class, and one of another controller', () => {
    const text = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: a, namespace: shop }
spec: { gatewayClassName: missing, listeners: [{ name: web, port: 80, protocol: HTTP }] }
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: b, namespace: shop }
spec: { gatewayClassName: theirs, listeners: [{ name: web, port: 80, protocol: HTTP }] }`;
    const stored = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: { name: theirs }
spec: { controllerName: example.com/other }`;
    const warnings = analyze(text, stored);
    expect(warnings.map((w) => `${w.code} ${w.name}`)).toEqual(['GatewayClassNotFound a', 'GatewayClassOfAnotherController b']);
    expect(warnings[1].message).toMatch(/controller "example.com\/other"/);
    // offline, the server's own class is assumed for a class the manifests do not hold
    expect(codes(text)).toEqual([]);
  });

  it('reports on the manifests only, not on what is stored', () => {
    const stored = EDGE + route('broken', `
  parentRefs: [{ name: edge }]
  hostnames: [shop.example.com]
  rules: [{ backendRefs: [{ name: gone, port: 80 }] }]`);
    const text = `
apiVersion: v1
kind: Service
metadata: { name: other, namespace: shop }
spec: { ports: [{ port: 80 }] }`;
    expect(codes(text, stored)).toEqual([]);
  });
});

describe('grpcMatchCovers', () => {
  const g = (raw: object) => compileGRPCMatch(raw);
  it('an absent service or method covers any; a regular expression only itself', () => {
    expect(grpcMatchCovers(g({}), g({ method: { service: 'a.B', method: 'C' } }))).toBe(true);
    expect(grpcMatchCovers(g({ method: { service: 'a.B' } }), g({ method: { service: 'a.B', method: 'C' } }))).toBe(true);
    expect(grpcMatchCovers(g({ method: { service: 'a.B', method: 'C' } }), g({ method: { service: 'a.B' } }))).toBe(false);
    expect(grpcMatchCovers(g({ method: { type: 'RegularExpression', service: 'a\\..*' } }), g({ method: { service: 'a.B' } }))).toBe(false);
    expect(grpcMatchCovers(g({ headers: [{ name: 'x', value: '1' }] }), g({}))).toBe(false);
  });
});

describe('matchCovers', () => {
  const m = (raw: object) => compileHTTPMatch(raw);
  it('a prefix covers the paths under it, by whole segments', () => {
    expect(matchCovers(m({ path: { type: 'PathPrefix', value: '/api' } }), m({ path: { type: 'Exact', value: '/api/x' } }))).toBe(true);
    expect(matchCovers(m({ path: { type: 'PathPrefix', value: '/api' } }), m({ path: { type: 'PathPrefix', value: '/apiary' } }))).toBe(false);
    expect(matchCovers(m({ path: { type: 'Exact', value: '/api' } }), m({ path: { type: 'PathPrefix', value: '/api' } }))).toBe(false);
  });
  it('conditions of the covering match must all be among the covered one\'s', () => {
    const base = { path: { type: 'PathPrefix', value: '/' } };
    expect(matchCovers(m({ ...base, method: 'GET' }), m(base))).toBe(false);
    expect(matchCovers(m(base), m({ ...base, method: 'GET' }))).toBe(true);
    expect(matchCovers(m({ ...base, headers: [{ name: 'X-A', value: '1' }] }), m({ ...base, headers: [{ name: 'x-a', value: '1' }, { name: 'b', value: '2' }] }))).toBe(true);
    expect(matchCovers(m({ ...base, queryParams: [{ name: 'q', value: '1' }] }), m(base))).toBe(false);
  });
  it('a regular expression covers only the same expression', () => {
    expect(matchCovers(m({ path: { type: 'RegularExpression', value: '/.*' } }), m({ path: { type: 'Exact', value: '/a' } }))).toBe(false);
    expect(matchCovers(m({ path: { type: 'RegularExpression', value: '/a+' } }), m({ path: { type: 'RegularExpression', value: '/a+' } }))).toBe(true);
  });
});
