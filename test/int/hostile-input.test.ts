// Bad input that once got a 5xx or a hang (issue 15): each gets a fast problem+json 4xx that names
// the problem and writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ rateLimitPerSecond: 0 }, { worker: false });
});
afterAll(async () => {
  await s?.close();
});

const BASE = '/api/v1/namespaces/hostile/httproutes';
const route = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute',
  metadata: { name, namespace: 'hostile' },
  spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ name: 'svc', port: 80 }] }] },
  ...extra,
});

async function eventCount(): Promise<number> {
  const rows = await s.running.ctx.db.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM events');
  return Number(rows[0].n);
}

interface Reply { status: number; type: string; body: any }

async function send(method: string, path: string, body?: string | Buffer, type = 'application/json'): Promise<Reply> {
  const res = await fetch(s.url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': type }, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: parsed };
}

/** Sends, and checks the answer is a problem+json 4xx naming `detail`, with no event written (npm run bench:hostile times the parses). */
async function rejected(statuses: number[], detail: RegExp, method: string, path: string, body?: string | Buffer, type?: string): Promise<Reply> {
  const before = await eventCount();
  const r = await send(method, path, body, type);
  expect(statuses, JSON.stringify(r.body).slice(0, 300)).toContain(r.status);
  expect(r.type).toContain('application/problem+json');
  expect(r.body.detail).toMatch(detail);
  expect(await eventCount()).toBe(before);
  return r;
}

const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('deep nesting', () => {
  it('a merge patch nested 10,000 levels is a 400, not a RangeError', async () => {
    expect((await send('POST', BASE, JSON.stringify(route('deep')))).status).toBe(201);
    const patch = `{"spec":{"x":${nested(10_000)}}}`;
    await rejected([400], /nested/, 'PATCH', `${BASE}/deep`, patch, 'application/merge-patch+json');
    await rejected([400], /nested/, 'PUT', `${BASE}/deep`, `{"kind":"HTTPRoute","metadata":{"name":"deep"},"spec":${nested(10_000)}}`);
  });

  it('a YAML apply nested about 2,000 levels is a 400, inline and in the parse workers', async () => {
    const deep = 'spec:\n' + Array.from({ length: 2000 }, (_, i) => ' '.repeat(i + 1) + 'a:').join('\n') + ' 1\n';
    const body = `apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: y, namespace: hostile}\n${deep}`;
    // padded past the inline limit, so that the parse workers read it; the first large body starts
    // them (about a second, once), which is not the cost being measured
    const padding = '#'.repeat(300 * 1024) + '\n';
    expect((await send('POST', '/api/v1/apply?dryRun=true', 'apiVersion: v1\nkind: Namespace\nmetadata: {name: warm}\n' + padding, 'application/yaml')).status).toBe(200);
    await rejected([400], /nested/, 'POST', '/api/v1/apply', body + padding, 'application/yaml');
    await rejected([400], /nested/, 'POST', '/api/v1/apply', body, 'application/yaml');
    await rejected([400], /nested/, 'POST', '/api/v1/apply', `{"items":[{"kind":"HTTPRoute","spec":${nested(10_000)}}]}`, 'application/json');
  });
});

describe('paths', () => {
  it('a history version beyond any integer is a 400', async () => {
    await rejected([400], /version/, 'GET', `${BASE}/deep/history/9223372036854775808`);
    await rejected([400], /version/, 'GET', `${BASE}/deep/history/2147483648`);
  });

  it('malformed percent-encoding in a path is a 400', async () => {
    for (const bad of ['%ff', '%c0%af', '%E0%A4%A', '%']) {
      await rejected([400], /percent-encoding|path/, 'GET', `${BASE}/${bad}`);
      await rejected([400], /percent-encoding|path/, 'PUT', `${BASE}/${bad}`, JSON.stringify(route('x')));
      await rejected([400], /percent-encoding|path/, 'GET', `/api/v1/namespaces/${bad}/gateways/g/snapshot`);
    }
    await rejected([400], /NUL|path/, 'GET', `${BASE}/a%00b`);
  });
});

describe('strings PostgreSQL cannot store', () => {
  const cases: [string, string][] = [['NUL', '\\u0000'], ['lone surrogate', '\\ud800'], ['lone low surrogate', 'x\\udfffy']];
  for (const [what, esc] of cases) {
    it(`${what} in a value or a key is a 422 naming the field, on every write path`, async () => {
      const label = `{"kind":"HTTPRoute","metadata":{"name":"s1","annotations":{"a":"v${esc}"}},"spec":{}}`;
      let r = await rejected([422], /NUL|surrogate/, 'POST', BASE, label);
      expect(r.body.errors[0].path).toBe('metadata.annotations.a');
      r = await rejected([422], /NUL|surrogate/, 'PUT', `${BASE}/s1`, `{"kind":"HTTPRoute","metadata":{"name":"s1","annotations":{"k${esc}":"v"}},"spec":{}}`);
      expect(r.body.errors[0].path).toMatch(/^metadata\.annotations/);
      r = await rejected([422], /NUL|surrogate/, 'POST', BASE, `{"kind":"HTTPRoute","metadata":{"name":"n${esc}"},"spec":{}}`);
      expect(r.body.errors[0].path).toBe('metadata.name');
      await rejected([422], /NUL|surrogate/, 'POST', '/api/v1/apply', `{"items":[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n${esc}"}}]}`, 'application/json');
      await rejected([422], /NUL|surrogate/, 'PATCH', `${BASE}/deep`, `{"spec":{"hostnames":["a${esc}.example.com"]}}`, 'application/merge-patch+json');
      await rejected([422], /NUL|surrogate/, 'POST', '/api/v1/apply', `{"items":[{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{"name":"s2","namespace":"hostile","annotations":{"a":"${esc}"}},"spec":{}}]}`, 'application/json');
      await rejected([422], /NUL|surrogate/, 'POST', '/api/v1/apply', `apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: s3, namespace: hostile, annotations: {a: "${esc}"}}\nspec: {}\n`, 'application/yaml');
      await rejected([422], /NUL|surrogate/, 'POST', '/api/v1/namespaces/hostile/configmaps', `{"kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"${esc}"}}`);
    });
  }

  it('a NUL in a YAML apply is refused before the store', async () => {
    await rejected([400, 422], /NUL|control|character/, 'POST', '/api/v1/apply', Buffer.from('apiVersion: v1\nkind: Namespace\nmetadata: {name: "a\u0000b"}\n'), 'application/yaml');
  });
});

describe('invalid UTF-8', () => {
  it('a JSON body with invalid UTF-8 is a 400, as apply answers', async () => {
    const body = Buffer.concat([Buffer.from('{"kind":"HTTPRoute","metadata":{"name":"u8","annotations":{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}},"spec":{}}')]);
    await rejected([400], /UTF-8/, 'POST', BASE, body);
    await rejected([400], /UTF-8/, 'PUT', `${BASE}/u8`, body);
    await rejected([400], /UTF-8/, 'PATCH', `${BASE}/deep`, body, 'application/merge-patch+json');
    await rejected([400], /UTF-8/, 'POST', '/api/v1/apply', body, 'application/json');
    expect((await send('GET', `${BASE}/u8`)).status).toBe(404);
  });
});
