// The core stays pure: no file under src/core imports I/O or the edges.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../src/core');
const FORBIDDEN = [/^@prisma\//, /prisma/, /^express$/, /^bullmq$/, /^ioredis$/, /^pg$/, /^node:(fs|net|http|https|child_process|dgram|worker_threads)/, /^(fs|net|http|https|child_process)$/, /adapters\//, /\/service\//, /\/generated\/prisma/];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

it('src/core imports no I/O, no adapter and no service module', () => {
  const offences: string[] = [];
  for (const file of files(root)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
      const spec = m[1] ?? m[2];
      if (FORBIDDEN.some((re) => re.test(spec))) offences.push(`${relative(root, file)} imports ${spec}`);
    }
  }
  expect(offences).toEqual([]);
});
