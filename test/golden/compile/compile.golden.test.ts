// Golden compiled tables (see golden-harness.ts). UPDATE_GOLDEN=1 npx vitest run test/golden/compile
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { goldenOutput, type GoldenInput } from './golden-harness';

const dir = dirname(fileURLToPath(import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';
const cases = readdirSync(dir).filter((f) => f.endsWith('.in.yaml')).sort();

function render(value: unknown): string {
  return stringify(JSON.parse(JSON.stringify(value)), { lineWidth: 0, aliasDuplicateObjects: false });
}

describe('golden compiled tables', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });
  for (const file of cases) {
    const name = file.replace(/\.in\.yaml$/, '');
    it(name, () => {
      const input = parse(readFileSync(join(dir, file), 'utf8')) as GoldenInput;
      const actual = render(goldenOutput(input));
      // compiling twice, or from the objects in another order, gives the same bytes
      expect(render(goldenOutput(input))).toBe(actual);
      expect(render((goldenOutput(input, true) as { tables: unknown }).tables)).toBe(render((goldenOutput(input) as { tables: unknown }).tables));
      const outFile = join(dir, `${name}.out.yaml`);
      if (update) {
        writeFileSync(outFile, actual);
        return;
      }
      expect(existsSync(outFile), `${name}.out.yaml is missing: run with UPDATE_GOLDEN=1`).toBe(true);
      expect(actual).toBe(readFileSync(outFile, 'utf8'));
    });
  }
});
