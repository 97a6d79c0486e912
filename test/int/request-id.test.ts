// Every answer carries an X-Request-Id: the client's when it is sane, else one made here; problem+json
// bodies carry it too, and so does the access log line, with the request's traceparent. Run through
// the real server in this process (its log captured), and once as `npm start` would run it, reading
// the child's stdout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/server';
import { startProcess, type ServiceProcess } from '../support/process';
import { tempDir } from '../support/temp-dir';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

interface Line { level: number; msg: string; reqId?: string; req?: { method: string; url: string; traceparent?: string }; res?: { statusCode: number }; route?: string; actor?: string; responseTime?: number }

function capture(level = 'info') {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, logger: pino({ level }, stream) };
}

async function until<T>(what: string, read: () => T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = read();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not appear within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('X-Request-Id and the access log (ACCESS_LOG=all)', () => {
  let s: TestServer;
  const log = capture();
  beforeAll(async () => {
    s = await startTestServer({}, { logger: log.logger });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('echoes a sane id, and puts it in problem+json and the log line with the traceparent', async () => {
    const r = await s.api('GET', '/api/v1/namespaces/shop/services/missing', undefined, { 'x-request-id': 'client-id-42', traceparent: TRACEPARENT });
    expect(r.status).toBe(404);
    expect(r.headers.get('x-request-id')).toBe('client-id-42');
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body.requestId).toBe('client-id-42');
    const line = await until('the log line of client-id-42', () => log.lines.find((l) => l.reqId === 'client-id-42'));
    expect(line).toMatchObject({
      level: 40, msg: 'request completed', res: { statusCode: 404 }, actor: 'admin', route: '/api/v1/namespaces/:namespace/services/:name',
      req: { method: 'GET', url: '/api/v1/namespaces/shop/services/missing', traceparent: TRACEPARENT },
    });
    expect(typeof line.responseTime).toBe('number');
  });

  it('makes an id when there is none, or the client sent one that is not sane', async () => {
    const seen = new Set<string>();
    for (const id of [undefined, 'has space', 'x'.repeat(129), 'caf\u00e9', '"><script>']) {
      const headers: Record<string, string> = id === undefined ? {} : { 'x-request-id': id };
      const r = await s.api('GET', '/api/v1/namespaces', undefined, headers);
      expect(r.status).toBe(200);
      const given = r.headers.get('x-request-id')!;
      expect(given, `for ${JSON.stringify(id)}`).toMatch(UUID);
      seen.add(given);
    }
    expect(seen.size).toBe(5);
    // a success is logged at info, with the made id
    const [last] = [...seen].slice(-1);
    const line = await until('the log line of the made id', () => log.lines.find((l) => l.reqId === last));
    expect(line).toMatchObject({ level: 30, res: { statusCode: 200 }, req: { method: 'GET', url: '/api/v1/namespaces' } });
    expect(line.req?.traceparent).toBeUndefined();
  });

  it('logs no malformed traceparent, and ids reach errors raised before routing', async () => {
    const r = await s.api('GET', '/api/v1/namespaces', undefined, { 'x-request-id': 'bad-trace', traceparent: '00-xyz-01' });
    expect(r.status).toBe(200);
    const unauth = await fetch(`${s.url}/api/v1/namespaces`, { headers: { 'x-request-id': 'no-token-7' } });
    expect(unauth.status).toBe(401);
    expect(((await unauth.json()) as { requestId: string }).requestId).toBe('no-token-7');
    const line = await until('the log line of bad-trace', () => log.lines.find((l) => l.reqId === 'bad-trace'));
    expect(line.req?.traceparent).toBeUndefined();
  });
});

describe('ACCESS_LOG=errors', () => {
  let s: TestServer;
  const log = capture();
  beforeAll(async () => {
    s = await startTestServer({ accessLog: 'errors' }, { logger: log.logger });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('writes the lines of 4xx answers and not those of successes', async () => {
    expect((await s.api('GET', '/api/v1/namespaces', undefined, { 'x-request-id': 'fine-1' })).status).toBe(200);
    expect((await s.api('GET', '/api/v1/nothing', undefined, { 'x-request-id': 'lost-1' })).status).toBe(404);
    const line = await until('the 404 line', () => log.lines.find((l) => l.reqId === 'lost-1'));
    expect(log.lines.find((l) => l.reqId === 'fine-1')).toBeUndefined();
    // the line a request of the sample would have had: pino-http's shape, the request summed up
    expect(line).toMatchObject({ level: 40, msg: 'request completed', req: { method: 'GET', url: '/api/v1/nothing' }, res: { statusCode: 404 } });
    expect(Object.keys(line.req as object).sort()).toEqual(['method', 'url']);
    expect(typeof line.responseTime).toBe('number');
    // the id is still echoed: it does not depend on the log
    expect((await s.api('GET', '/api/v1/namespaces', undefined, { 'x-request-id': 'fine-2' })).headers.get('x-request-id')).toBe('fine-2');
  });
});

describe('the access log of a service process', () => {
  let svc: ServiceProcess | null = null;
  afterAll(async () => {
    await svc?.stop();
  });

  it('is a JSON line on stdout carrying the request id and traceparent', async () => {
    svc = await startProcess({ ADMIN_TOKEN, SWITCHYARD_DATA_DIR: tempDir('sy-access-') });
    const r = await fetch(`${svc.url}/api/v1/namespaces`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-request-id': 'from-the-child-1', traceparent: TRACEPARENT } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe('from-the-child-1');
    const line = await until('the child\'s log line', () => svc!.output().split('\n').find((l) => l.includes('"from-the-child-1"')));
    expect(JSON.parse(line)).toMatchObject({
      level: 30, service: 'switchyard', reqId: 'from-the-child-1', msg: 'request completed', route: '/api/v1/namespaces',
      req: { method: 'GET', url: '/api/v1/namespaces', traceparent: TRACEPARENT }, res: { statusCode: 200 },
    });
  });
});
