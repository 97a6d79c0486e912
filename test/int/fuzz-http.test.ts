// Random and mutated objects, and hostile paths, query strings, headers and bodies, thrown at the
// HTTP API: every answer is a 2xx, 3xx or a 4xx with a problem+json body, never a 5xx or a hang,
// and a rejected request changes nothing.
import { readFileSync } from 'node:fs';
import { validationDir } from '../support/corpora';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KINDS } from '../../src/core/model/kinds';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/server';

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
        const r = await s.api(method, path, payload, { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' });
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

// Values that broke parsers, integer columns, percent-decoding or PostgreSQL's text and jsonb.
const hostileText = fc.constantFrom(
  '%ff', '%c0%af', '%E0%A4%A', '%', '%%', '%00', 'a%00b', '%ED%A0%80', '%F4%90%80%80', '..', '.', '%2e%2e', '%2F',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty',
  '9223372036854775808', '18446744073709551616', '2147483648', '-1', '0', '1e400', '1e3', 'NaN', 'Infinity', '0x10', ' 1', '1.5',
  'x'.repeat(5000), '\u00e9', '%E2%80%AE', 'a b', "a'b", 'a"b', '<script>',
);
const segment = fc.oneof(hostileText, fc.stringMatching(/^[a-z0-9-]{1,12}$/), fc.string({ maxLength: 8 }).map(encodeURIComponent));

const plurals = KINDS.map((k) => k.plural);
const hostilePath = fc.oneof(
  fc.tuple(segment, fc.constantFrom(...plurals), segment).map(([ns, p, n]) => `/api/v1/namespaces/${ns}/${p}/${n}`),
  fc.tuple(fc.constantFrom(...plurals), segment).map(([p, n]) => `/api/v1/${p}/${n}`),
  fc.tuple(segment, segment).map(([n, v]) => `/api/v1/namespaces/default/httproutes/${n}/history/${v}`),
  fc.tuple(segment, segment).map(([ns, n]) => `/api/v1/namespaces/${ns}/gateways/${n}/snapshot`),
  fc.tuple(segment, segment).map(([ns, n]) => `/api/v1/namespaces/${ns}/gateways/${n}/resolve`),
  fc.tuple(segment).map(([ns]) => `/api/v1/namespaces/${ns}/httproutes`),
  fc.constantFrom('/api/v1/apply', '/api/v1/events', '/api/v1/tokens', '/api/v1/httproutes', '/api/v1/namespaces'),
  segment.map((x) => `/api/v1/tokens/${x}`),
  segment.map((x) => `/${x}`),
);

// no wait that a valid apply would honour: with no worker it would end in a 504
const queryKeys = ['labelSelector', 'limit', 'continue', 'after', 'kind', 'namespace', 'dryRun', 'prune', 'applySet', 'wait', '__proto__', 'constructor'];
const queryValue = fc.oneof(hostileText, fc.string({ maxLength: 10 }).map(encodeURIComponent), fc.constantFrom('a=b', 'a in (x,y)', '!a', 'true', 'All', 'eyJhIjoxfQ', 'WyJcdTAwMDAiLCJ4Il0'));
const hostileQuery = fc.array(fc.tuple(fc.constantFrom(...queryKeys), queryValue), { maxLength: 4 }).map((kv) =>
  kv.length ? '?' + kv.map(([k, v]) => `${k}=${k === 'wait' && /^\d/.test(v) && Number(v) < 1e3 ? '-1' : v}`).join('&') : '');

const headerValue = fc.oneof(
  fc.constantFrom('"9223372036854775808"', '*', 'W/"1"', '"1", "2"', '""', 'garbage', '"-1"', '"1e400"', '"__proto__"'),
  fc.stringMatching(/^[\x20-\x7e]{0,40}$/),
);
const hostileHeaders = fc.record({
  'content-type': fc.constantFrom('application/json', 'application/merge-patch+json', 'application/yaml', 'text/plain', 'application/json; charset=latin1', 'multipart/form-data', '', 'application/x-www-form-urlencoded'),
  'if-match': headerValue, 'if-none-match': headerValue, 'idempotency-key': fc.oneof(headerValue, fc.constant('k'.repeat(300))), 'accept': headerValue,
}, { requiredKeys: ['content-type'] });

const deep = (n: number, open: string, close: string, leaf = '1') => open.repeat(n) + leaf + close.repeat(n);
const bodyText = fc.oneof(
  fc.constantFrom(
    deep(10_000, '{"a":', '}'), deep(100_000, '[', ']'), `{"kind":"HTTPRoute","spec":${deep(5_000, '{"a":', '}')}}`,
    '{"metadata":{"name":"x\\u0000"}}', '{"metadata":{"name":"ok","annotations":{"a":"\\ud800"}}}', '{"spec":{"k\\u0000":1}}', '{"a":"\\udc00x"}',
    '{"metadata":{"resourceVersion":"9223372036854775808"}}', '{"metadata":{"generation":1e400,"resourceVersion":1e400}}', '{"spec":{"rules":[{"backendRefs":[{"name":"s","port":9223372036854775808}]}]}}',
    '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}', '{"metadata":{"labels":{"__proto__":"x"}}}',
    '{"items":[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n\\u0000"}}]}',
    'apiVersion: v1\nkind: Namespace\nmetadata: {name: "a\\0b"}\n', 'a: &a [*a]\n', 'spec:\n' + Array.from({ length: 1500 }, (_, i) => ' '.repeat(i + 1) + 'a:').join('\n') + ' 1\n',
    'apiVersion: v1\nkind: Namespace\nmetadata: {name: "\\ud800"}\n', '---\n---\n', '', '{', 'null', '[]', '"x"',
  ),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);
const invalidUtf8 = fc.tuple(bodyText, fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe0, 0xa4], [0xf8, 0x88, 0x80, 0x80, 0x80]), fc.nat())
  .map(([t, bytes, at]) => { const b = Buffer.from(t); const i = b.length ? at % b.length : 0; return Buffer.concat([b.subarray(0, i), Buffer.from(bytes), b.subarray(i)]); });
const hostileBody = fc.oneof(bodyText.map((t) => Buffer.from(t)), invalidUtf8, fc.constant(undefined));

it('never answers 5xx or changes anything when it rejects hostile paths, queries, headers and bodies', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'), hostilePath, hostileQuery, hostileHeaders, hostileBody,
      async (method, path, query, headers, body) => {
        const sendBody = method === 'GET' || method === 'HEAD' ? undefined : body;
        const before = await eventCount();
        const res = await fetch(s.url + path + query, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...headers }, body: sendBody });
        const text = await res.text();
        const what = `${method} ${path}${query} ${JSON.stringify(headers)} ${sendBody?.toString('utf8').slice(0, 120)}: ${res.status} ${text.slice(0, 300)}`;
        expect(res.status, what).toBeLessThan(500);
        if (res.status >= 400) {
          if (method !== 'HEAD') {
            expect(res.headers.get('content-type'), what).toContain('application/problem+json');
            expect(typeof JSON.parse(text).detail, what).toBe('string');
          }
          expect(await eventCount(), what).toBe(before);
        }
        expect(({} as any).polluted).toBeUndefined();
      }),
    { numRuns: 400, interruptAfterTimeLimit: 20_000 },
  );
}, 60_000);
