// Every way out of the service as problem+json names a Kubernetes StatusReason, and every field
// error a CauseType: each ServiceError kind, each status an HttpError or sendProblem is given
// anywhere in src/, and each wording the validator's message builders produce.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import openapi from '../../src/generated/openapi.json';
import { SERVICE_ERROR_KINDS, ServiceError } from '../../src/service/errors';
import { problem, REASON_OF_STATUS, serviceProblem } from '../../src/adapters/http/problem';
import { fieldReason, validateObject } from '../../src/core/validate';
import { duplicate, forbidden, invalid, NOT_CHECKED, REQUIRED, tooLong, tooMany, unknownField, unsupported } from '../../src/core/validate/messages';

const STATUS_REASONS: string[] = openapi.components.schemas.StatusReason.enum;
const FIELD_REASONS: string[] = openapi.components.schemas.FieldReason.enum;

/** The Kubernetes status code of each reason (k8s.io/apimachinery/pkg/api/errors). */
const CODE_OF: Record<string, number> = {
  BadRequest: 400, Unauthorized: 401, Forbidden: 403, NotFound: 404, MethodNotAllowed: 405, NotAcceptable: 406,
  AlreadyExists: 409, Conflict: 409, RequestEntityTooLarge: 413, UnsupportedMediaType: 415, Invalid: 422,
  TooManyRequests: 429, InternalError: 500, ServiceUnavailable: 503, Timeout: 504,
};

describe('ServiceError kinds', () => {
  it.each(SERVICE_ERROR_KINDS)('%s becomes a problem with a StatusReason that fits its status', (kind) => {
    const p = serviceProblem(new ServiceError(kind, 'why'));
    expect(STATUS_REASONS).toContain(p.reason);
    expect(CODE_OF[p.reason]).toBe(p.status);
    expect(Object.keys(p).sort()).toEqual(['detail', 'reason', 'status', 'title', 'type']);
  });

  it('each kind has a reason of its own', () => {
    const reasons = SERVICE_ERROR_KINDS.map((k) => serviceProblem(new ServiceError(k, 'why')).reason);
    expect(new Set(reasons).size).toBe(SERVICE_ERROR_KINDS.length);
  });

  it('gives every field error a reason, keeping one the maker set', () => {
    const err = new ServiceError('invalid', 'bad', [
      { path: 'spec.x', message: REQUIRED },
      { path: 'spec.y', message: 'anything else', reason: 'FieldValueTooMany' },
      { path: 'spec.z', message: 'must be in the future' },
    ]);
    expect(serviceProblem(err).errors?.map((e) => e.reason)).toEqual(['FieldValueRequired', 'FieldValueTooMany', 'FieldValueInvalid']);
  });
});

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return f === 'generated' ? [] : sources(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

describe('HTTP statuses', () => {
  const used = new Set<number>();
  for (const file of sources(join(__dirname, '../../src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:new HttpError\(|sendProblem\(res, |\bproblem\()(\d{3})\b/g)) used.add(Number(m[1]));
  }

  it('finds the statuses the code answers with', () => {
    expect([...used]).toEqual(expect.arrayContaining([400, 401, 403, 404, 405, 409, 413, 415, 429, 500, 503, 504]));
  });

  it('has a StatusReason of the same code for each of them', () => {
    for (const status of used) {
      const reason = REASON_OF_STATUS[status];
      expect(reason, `status ${status}`).toBeDefined();
      expect(STATUS_REASONS).toContain(reason);
      expect(CODE_OF[reason]).toBe(status);
      expect(problem(status, 'why').reason).toBe(reason);
    }
  });

  it('fills in the reasons of an HttpError-style problem with field errors', () => {
    const p = problem(400, 'bad', [{ path: 'items', message: 'must be an array' }]);
    expect(p).toMatchObject({ status: 400, reason: 'BadRequest', errors: [{ path: 'items', message: 'must be an array', reason: 'FieldValueInvalid' }] });
  });
});

describe('field reasons of the validator', () => {
  it.each([
    [REQUIRED, 'FieldValueRequired'],
    [`${REQUIRED}: name or generateName is required`, 'FieldValueRequired'],
    [invalid('x', 'should match something'), 'FieldValueInvalid'],
    [unsupported('Foo', ['Bar', 'Baz']), 'FieldValueNotSupported'],
    [tooLong(63), 'FieldValueTooLong'],
    [tooMany(17, 16), 'FieldValueTooMany'],
    [duplicate({ name: 'http' }), 'FieldValueDuplicate'],
    [forbidden('field is immutable when `immutable` is set'), 'FieldValueForbidden'],
    [unknownField('spec.bogus'), 'FieldValueNotSupported'],
    [NOT_CHECKED, 'FieldValueInvalid'],
    ['internal validation error: boom', 'InternalError'],
  ])('%s -> %s', (message, reason) => {
    expect(fieldReason(message)).toBe(reason);
    expect(FIELD_REASONS).toContain(reason);
  });

  it('maps the schema keyword, not the words: a wrong JSON type is FieldValueTypeInvalid', () => {
    const { errors } = validateObject({
      apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'g', namespace: 'n' },
      spec: { gatewayClassName: 'c', listeners: [{ name: 'http', protocol: 'HTTP', port: '80' }] },
    });
    expect(errors).toContainEqual(expect.objectContaining({ path: 'spec.listeners[0].port', reason: 'FieldValueTypeInvalid' }));
  });

  it('gives a reason to every error of every invalid kind of object', () => {
    const { errors } = validateObject({
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'Bad_Name', namespace: 'n', labels: { 'a/b/c': 'x' } },
      spec: { ports: [{ name: 'p', port: 80 }, { name: 'p', port: 81 }], bogus: 1 },
    });
    expect(errors.length).toBeGreaterThan(2);
    for (const e of errors) expect(FIELD_REASONS, JSON.stringify(e)).toContain(e.reason);
    expect(errors.map((e) => e.reason)).toContain('FieldValueDuplicate');
  });
});
