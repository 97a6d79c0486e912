// Validation speed: a 16-rule HTTPRoute through validateObject (defaults, schema, CEL rules).
// Prints `name: value unit (target ...)`.
import { validateObject } from '../src/core/validate';
import { figureLine } from './record';

function route16(): object {
  const rules = Array.from({ length: 16 }, (_, i) => ({
    name: `rule-${i}`,
    matches: [
      {
        path: { type: i % 2 ? 'Exact' : 'PathPrefix', value: `/api/v${i}/items` },
        headers: [{ name: 'x-tenant', value: `tenant-${i}` }],
        queryParams: [{ type: 'RegularExpression', name: 'page', value: '^[0-9]+$' }],
        method: 'GET',
      },
      { path: { value: `/v${i}` } },
    ],
    filters: [
      { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x-route', value: `r${i}` }], remove: ['x-debug'] } },
      { type: 'ResponseHeaderModifier', responseHeaderModifier: { add: [{ name: 'x-served-by', value: 'switchyard' }] } },
    ],
    backendRefs: [
      { name: `svc-${i}`, port: 8080, weight: 90 },
      { name: `svc-${i}-canary`, port: 8080, weight: 10 },
    ],
    timeouts: { request: '10s', backendRequest: '2s' },
  }));
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'bench-route', namespace: 'default', labels: { app: 'bench', 'example.com/team': 'edge' } },
    spec: {
      parentRefs: [{ name: 'example-gateway', sectionName: 'https' }, { name: 'example-gateway', sectionName: 'http' }],
      hostnames: ['api.example.com', '*.example.org'],
      rules,
    },
  };
}

function measure(fn: () => void, iterations: number): number {
  const batches: number[] = [];
  for (let b = 0; b < 7; b++) {
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) fn();
    batches.push((performance.now() - t0) / iterations);
  }
  batches.sort((a, b) => a - b);
  return batches[3];
}

const obj = route16();
const check = validateObject(obj);
if (check.errors.length) {
  console.error('benchmark route is invalid:', check.errors);
  process.exit(1);
}
for (let i = 0; i < 2000; i++) validateObject(obj); // warm-up (ajv compile, JIT)
const ms = measure(() => validateObject(obj), 2000);
figureLine(`validate_httproute_16_rules: ${ms.toFixed(4)} ms (target <= 0.25 ms)`);
