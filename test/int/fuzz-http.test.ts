// Random and mutated objects thrown at the HTTP API: every answer is a 2xx or a 4xx with a
// problem+json body, never a 5xx or a hang, and a rejected write changes nothing.
import { readFileSync } from 'node:fs';
import { validationDir } from '../support/corpora';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KINDS } from '../../src/core/model/kinds';
import { startTestServer, type TestServer } from '../support/server';

const dir = validationDir();
const corpus: any[] = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')).map((c: any) => c.object);

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ rateLimitPerSecond: 0 }, { worker: false });
});
afterAll(async () => {
  await s?.close();
});

async function eventCount(): Promise<number> {
  return Number((await s.running.ctx.db.prisma.$queryRawUnsafe<any[]>('SELECT count(*)::int AS n FROM events'))[0].n);
}

const mutation = fc.oneof(
  fc.constant((o: any) => { o.spec = 'not an object'; }),
  fc.constant((o: any) => { o.metadata = { ...o.metadata, labels: { '__proto__': 'x', constructor: 'y' } }; }),
  fc.constant((o: any) => { o.spec = { ...o.spec, ['__proto__']: { polluted: true } }; }),
  fc.constant((o: any) => { let n: any = {}; const root = n; for (let i = 0; i < 200; i++) { n.x = {}; n = n.x; } o.spec = { ...o.spec, deep: root }; }),
  fc.constant((o: any) => { o.metadata = { ...o.metadata, annotations: { big: 'x'.repeat(300_000) } }; }),
  fc.constant((o: any) => { o.apiVersion = 42; }),
  fc.constant((o: any) => { o.kind = 'Nonsense'; }),
  fc.constant((o: any) => { o.metadata = { ...o.metadata, name: 'UPPER_case!' }; }),
  fc.constant((o: any) => { if (o.spec?.rules) o.spec.rules = Array.from({ length: 40 }, () => o.spec.rules[0]); }),
  fc.constant((o: any) => { if (o.spec?.hostnames) o.spec.hostnames = ['(a+)+$', '*.*.example.com']; }),
  fc.anything().map((v) => (o: any) => { o.spec = { ...o.spec, extra: v }; }),
);

it('never answers 5xx or changes anything when it rejects', async () => {
  const kinds = KINDS.filter((k) => k.scope === 'Namespaced');
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.record({ seed: fc.constantFrom(...corpus), mutate: fc.array(mutation, { maxLength: 3 }) }).map(({ seed, mutate }) => {
          const o = structuredClone(seed);
          for (const m of mutate) m(o);
          return o;
        }),
        fc.anything(),
        fc.jsonValue(),
      ),
      fc.constantFrom('POST', 'PUT', 'PATCH'),
      fc.constantFrom(...kinds),
      async (body, method, kind) => {
        const name = typeof (body as any)?.metadata?.name === 'string' && /^[a-z0-9-]{1,50}$/.test((body as any).metadata.name) ? (body as any).metadata.name : 'fuzz';
        const ns = typeof (body as any)?.metadata?.namespace === 'string' && /^[a-z0-9-]{1,50}$/.test((body as any).metadata.namespace) ? (body as any).metadata.namespace : 'default';
        const path = method === 'POST' ? `/api/v1/namespaces/${ns}/${kind.plural}` : `/api/v1/namespaces/${ns}/${kind.plural}/${name}`;
        let payload: string;
        try {
          payload = JSON.stringify(body) ?? 'null';
        } catch {
          payload = '{"broken": ';
        }
        const before = await eventCount();
        const t0 = Date.now();
        const r = await s.api(method, path, payload, { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' });
        expect(Date.now() - t0).toBeLessThan(5000);
        expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBeLessThan(500);
        if (r.status >= 400) {
          expect(r.headers.get('content-type')).toContain('application/problem+json');
          expect(typeof r.body.detail).toBe('string');
          expect(await eventCount()).toBe(before);
        }
        expect(({} as any).polluted).toBeUndefined();
      },
    ),
    { numRuns: 300 },
  );
}, 180_000);
