// problem+json through the real server carries machine-readable reasons: a Kubernetes StatusReason
// for the failure and a CauseType for each field error, with the contract's members unchanged.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, mintToken, startTestServer, type TestServer } from '../support/server';
import { validationDir } from '../support/corpora';
import { kindInfo } from '../../src/core/model/kinds';

interface Case { id: string; valid: boolean; object: { kind: string; metadata: { name: string; namespace?: string } }; expectPathContains?: string }

const corpus = JSON.parse(readFileSync(join(validationDir(), 'cases.json'), 'utf8')) as Case[];

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

function objectPath(o: Case['object']): string {
  const info = kindInfo(o.kind)!;
  return info.scope === 'Cluster' ? `/api/v1/${info.plural}/${o.metadata.name}` : `/api/v1/namespaces/${o.metadata.namespace ?? 'default'}/${info.plural}/${o.metadata.name}`;
}

describe('invalid objects of the validation corpus', () => {
  it.each([
    ['gateway-missing-gatewayclassname', 'spec.gatewayClassName', 'FieldValueRequired'],
    ['gateway-tls-mode-invalid', 'spec.listeners[0].tls.mode', 'FieldValueNotSupported'],
    ['httproute-path-type-invalid', 'spec.rules[0].matches[0].path.type', 'FieldValueNotSupported'],
    ['gatewayclass-description-too-long', 'spec.description', 'FieldValueTooLong'],
    ['gateway-listeners-too-many', 'spec.listeners', 'FieldValueTooMany'],
    ['gateway-listener-name-uppercase', 'spec.listeners[0].name', 'FieldValueInvalid'],
    ['gateway-listener-port-as-string', 'spec.listeners[0].port', 'FieldValueTypeInvalid'],
    ['gateway-listener-names-not-unique', 'spec.listeners[1]', 'FieldValueDuplicate'],
    ['gateway-addresses-duplicate-ip', 'spec.addresses', 'FieldValueInvalid'],
  ])('%s: %s is %s', async (id, path, reason) => {
    const c = corpus.find((x) => x.id === id)!;
    expect(c.valid).toBe(false);
    const r = await s.api('PUT', objectPath(c.object), c.object);
    expect(r.status).toBe(422);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body).toMatchObject({ type: expect.any(String), title: 'Unprocessable Entity', status: 422, detail: expect.any(String), reason: 'Invalid' });
    expect(r.body.errors).toContainEqual({ path, message: expect.any(String), reason });
    for (const e of r.body.errors) expect(Object.keys(e).sort()).toEqual(['message', 'path', 'reason']);
  });
});

describe('the reason of each failure', () => {
  const gw = 'gateway.networking.k8s.io/v1';
  const route = (name: string) => ({ apiVersion: gw, kind: 'HTTPRoute', metadata: { name }, spec: { parentRefs: [{ name: 'edge' }] } });

  it('NotFound, AlreadyExists and Conflict', async () => {
    expect((await s.api('GET', '/api/v1/namespaces/r/httproutes/none')).body.reason).toBe('NotFound');
    expect((await s.api('POST', '/api/v1/namespaces/r/httproutes', route('twice'))).status).toBe(201);
    const again = await s.api('POST', '/api/v1/namespaces/r/httproutes', route('twice'));
    expect(again.body).toMatchObject({ status: 409, reason: 'AlreadyExists' });
    const stale = await s.api('PUT', '/api/v1/namespaces/r/httproutes/twice', route('twice'), { 'if-match': '"7"' });
    expect(stale.body).toMatchObject({ status: 409, reason: 'Conflict' });
    expect((await s.api('POST', '/api/v1/tokens', { name: 'dup', role: 'viewer' })).status).toBe(201);
    expect((await s.api('POST', '/api/v1/tokens', { name: 'dup', role: 'viewer' })).body).toMatchObject({ status: 409, reason: 'AlreadyExists' });
  });

  it('BadRequest, UnsupportedMediaType, MethodNotAllowed, RequestEntityTooLarge', async () => {
    expect((await s.api('PUT', '/api/v1/namespaces/r/httproutes/x', '{not json')).body).toMatchObject({ status: 400, reason: 'BadRequest' });
    expect((await s.api('PUT', '/api/v1/namespaces/r/httproutes/x', '{}', { 'content-type': 'text/plain' })).body).toMatchObject({ status: 415, reason: 'UnsupportedMediaType' });
    expect((await s.api('GET', '/api/v1/apply')).body).toMatchObject({ status: 405, reason: 'MethodNotAllowed' });
    const big = JSON.stringify({ ...route('big'), metadata: { name: 'big', annotations: { a: 'x'.repeat(2 * 1024 * 1024) } } });
    expect((await s.api('PUT', '/api/v1/namespaces/r/httproutes/big', big)).body).toMatchObject({ status: 413, reason: 'RequestEntityTooLarge' });
  });

  it('Unauthorized and Forbidden', async () => {
    expect((await client(s.url, null)('GET', '/api/v1/gateways')).body).toMatchObject({ status: 401, reason: 'Unauthorized' });
    expect((await client(s.url, 'no-such-token')('GET', '/api/v1/gateways')).body).toMatchObject({ status: 401, reason: 'Unauthorized' });
    const viewer = client(s.url, await mintToken(s, { name: 'looker', role: 'viewer' }));
    expect((await viewer('PUT', '/api/v1/namespaces/r/httproutes/v', route('v'))).body).toMatchObject({ status: 403, reason: 'Forbidden' });
  });

  it('Invalid for an apply, each issue with its reason, a repeated object a FieldValueDuplicate', async () => {
    const manifest = [
      `apiVersion: ${gw}\nkind: HTTPRoute\nmetadata: {name: a, namespace: r}\nspec: {parentRefs: [{name: edge}]}`,
      `apiVersion: ${gw}\nkind: HTTPRoute\nmetadata: {name: a, namespace: r}\nspec: {parentRefs: [{name: edge}]}`,
    ].join('\n---\n');
    const r = await s.api('POST', '/api/v1/apply', manifest, { 'content-type': 'application/yaml' });
    expect(r.body).toMatchObject({ status: 422, reason: 'Invalid' });
    expect(r.body.errors).toContainEqual(expect.objectContaining({ document: 1, path: 'metadata.name', reason: 'FieldValueDuplicate' }));
    const invalid = `apiVersion: ${gw}\nkind: HTTPRoute\nmetadata: {name: b, namespace: r}\nspec: {hostnames: [UPPER]}`;
    const v = await s.api('POST', '/api/v1/apply', invalid, { 'content-type': 'application/yaml' });
    expect(v.body).toMatchObject({ status: 422, reason: 'Invalid' });
    expect(v.body.errors).toContainEqual(expect.objectContaining({ document: 0, path: 'spec.hostnames[0]', reason: 'FieldValueInvalid' }));
  });

});

describe('a token over its rate', () => {
  let slow: TestServer;
  beforeAll(async () => {
    slow = await startTestServer({ rateLimitPerSecond: 5, rateLimitBurst: 5 });
  });
  afterAll(async () => {
    await slow?.close();
  });

  it('is told TooManyRequests', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, () => slow.api('GET', '/api/v1/gateways')));
    expect(answers.find((a) => a.status === 429)?.body).toMatchObject({ status: 429, reason: 'TooManyRequests' });
  });
});
