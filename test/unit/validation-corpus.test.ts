// Every experimental-channel case of the shared validation corpus ($VALIDATION_DIR/cases.json) through
// validateObject: valid cases without errors, invalid ones with an error at the expected path and wording.
import { readFileSync } from 'node:fs';
import { validationDir } from '../support/corpora';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateObject } from '../../src/core/validate';

interface Case {
  id: string;
  valid: boolean;
  object: Record<string, unknown>;
  before?: Record<string, unknown>;
  channels: string[];
  expectPathContains?: string;
  expectMessageContains?: string;
}

const dir = validationDir();
const cases = (JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as Case[]).filter((c) =>
  c.channels.includes('experimental'),
);

let passed = 0;
let failed = 0;

describe('validation corpus (experimental channel)', () => {
  for (const c of cases) {
    it(c.id, () => {
      let ok = false;
      try {
        const old = c.before ? validateObject(c.before).object : undefined;
        if (c.before) expect(validateObject(c.before).errors).toEqual([]);
        const { errors } = validateObject(c.object, { old });
        if (c.valid) {
          expect(errors, `${c.id} should be accepted`).toEqual([]);
        } else {
          const hit = errors.some(
            (e) => e.path.includes(c.expectPathContains ?? '') && e.message.includes(c.expectMessageContains ?? ''),
          );
          expect(hit, `${c.id}: want "${c.expectMessageContains}" at ${c.expectPathContains}, got ${JSON.stringify(errors)}`).toBe(true);
        }
        ok = true;
      } finally {
        if (ok) passed++;
        else failed++;
      }
    });
  }

  afterAll(() => {
    console.log(`validation corpus: ${passed} passed, ${failed} failed of ${cases.length}`);
  });
});
