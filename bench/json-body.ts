// The cost duplicate-key detection adds to parsing a write body: a ~2 KB HTTPRoute and a ~64 KB
// Gateway (compact, and a route indented as curl users send it), parsed alone (JSON.parse, and the depth check every body has) and parsed then checked
// for duplicate keys, without duplicates (the common case: one count) and with one (a second read
// for the paths). Wall time is the median of 7 batches. Prints `name: value unit`.
import { duplicateKeys } from '../src/core/validate/duplicate-keys';
import { MAX_BODY_DEPTH, nestedDeeperThan } from '../src/core/validate/storable';

function measure(name: string, fn: () => void, iterations: number): number {
  for (let i = 0; i < Math.min(iterations, 2000); i++) fn();
  const batches: number[] = [];
  for (let b = 0; b < 7; b++) {
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) fn();
    batches.push(((performance.now() - t0) * 1000) / iterations);
  }
  batches.sort((a, b) => a - b);
  console.log(`${name}: ${batches[3].toFixed(2)} µs`);
  return batches[3];
}

const route = {
  apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute',
  metadata: { name: 'shop-frontend', namespace: 'shop', labels: { app: 'shop', tier: 'frontend', 'app.kubernetes.io/part-of': 'shop' }, annotations: { 'example.com/owner': 'team-shop: frontend "web"' } },
  spec: {
    parentRefs: [{ name: 'edge', namespace: 'infra', sectionName: 'https' }],
    hostnames: ['shop.example.com', 'www.shop.example.com'],
    rules: Array.from({ length: 6 }, (_, i) => ({
      matches: [{ path: { type: 'PathPrefix', value: `/api/v${i}` }, headers: [{ name: 'x-tenant', value: `t${i}` }], method: 'GET' }],
      filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x-route', value: `r${i}` }] } }],
      backendRefs: [{ name: `svc-${i}`, port: 8080, weight: 90 }, { name: `svc-${i}-canary`, port: 8080, weight: 10 }],
    })),
  },
};
const gateway = {
  apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'edge', namespace: 'infra' },
  spec: { gatewayClassName: 'switchyard', listeners: Array.from({ length: 400 }, (_, i) => ({ name: `l${i}`, port: 8000 + (i % 100), protocol: 'HTTPS', hostname: `h${i}.example.com`, tls: { certificateRefs: [{ name: `cert-${i}` }] }, allowedRoutes: { namespaces: { from: 'All' } } })) },
};

const plainRoute = { ...route, metadata: { ...route.metadata, annotations: { 'example.com/owner': 'team-shop' } } };
const utf8 = new TextDecoder('utf-8', { fatal: true });
const cases = [
  ['route_2kb', route, 20000, 0], ['route_2kb_no_colon_in_strings', plainRoute, 20000, 0], ['route_2kb_indented', route, 20000, 2],
  ['gateway_64kb', gateway, 500, 0],
] as const;
for (const [name, obj, n, indent] of cases) {
  // as a request body reaches the parser: decoded from bytes
  const text = utf8.decode(Buffer.from(JSON.stringify(obj, null, indent || undefined)));
  const dup = text.replace(/"kind": ?/, '"kind":"HTTPRoute","kind":');
  console.log(`${name}_bytes: ${text.length}`);
  const base = measure(`${name}_parse`, () => { const v = JSON.parse(text); nestedDeeperThan(v, MAX_BODY_DEPTH); }, n);
  const checked = measure(`${name}_parse_and_check`, () => { const v = JSON.parse(text); nestedDeeperThan(v, MAX_BODY_DEPTH); if (duplicateKeys(text, v).length) throw new Error('none expected'); }, n);
  measure(`${name}_parse_and_check_with_duplicate`, () => { const v = JSON.parse(dup); nestedDeeperThan(v, MAX_BODY_DEPTH); if (duplicateKeys(dup, v).length !== 1) throw new Error('one expected'); }, n);
  console.log(`${name}_added: ${(((checked - base) / base) * 100).toFixed(0)} %`);
}
