// Golden cases through the production recompute (see runner.ts): test/golden/cases/<case>.in.yaml
// -> <case>.out.yaml. Regenerate with UPDATE_GOLDEN=1 npx vitest run test/golden and review the diff.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCase } from './runner';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'cases');
const update = process.env.UPDATE_GOLDEN === '1';
const cases = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.in.yaml')).sort() : [];

describe('golden cases', () => {
  it('holds the cases, each out file beside its in file', () => {
    // 45 migrated from the status harness and 45 from the compile harness
    expect(cases.length).toBeGreaterThanOrEqual(90);
    const outs = readdirSync(dir).filter((f) => f.endsWith('.out.yaml')).map((f) => f.replace(/\.out\.yaml$/, '.in.yaml')).sort();
    if (!update) expect(outs).toEqual(cases);
  });
  for (const file of cases) {
    const name = file.replace(/\.in\.yaml$/, '');
    it(name, async () => {
      const input = readFileSync(join(dir, file), 'utf8');
      const got = await runCase(input);
      // running again, or translating each world with its lists in reverse order, gives the same bytes
      expect((await runCase(input)).text).toBe(got.text);
      expect((await runCase(input, { reverse: true })).tables).toEqual(got.tables);
      const outFile = join(dir, `${name}.out.yaml`);
      if (update) writeFileSync(outFile, got.text);
      expect(existsSync(outFile), `${outFile} is missing: run with UPDATE_GOLDEN=1`).toBe(true);
      expect(got.text).toBe(readFileSync(outFile, 'utf8'));
    });
  }
});
