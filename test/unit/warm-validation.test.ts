import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/core/model/kinds';
import { compiledSchemas } from '../../src/core/validate/schema';
import { validate, warmValidation } from '../../src/service/validation';

describe('warmValidation', () => {
  it('compiles the validator of every kind and version before any write, so that none compiles at a first write', async () => {
    const every = [...new Set(KINDS.flatMap((k) => Object.values(k.versions)))].sort();
    expect(compiledSchemas()).toEqual([]);
    await warmValidation();
    expect(compiledSchemas().sort()).toEqual(every);
    const { errors } = validate({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'n' }, spec: {} });
    expect(errors).toEqual([]);
    expect(compiledSchemas().sort()).toEqual(every);
  });
});
