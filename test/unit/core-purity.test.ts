// The core stays pure: no file under src/core imports I/O or the edges.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../src/core');
// The same list as eslint.config.js; this test also sees import() and `import('x').T`.
const FORBIDDEN = [
  /^@prisma\//, /prisma/, /^(express|bullmq|ioredis|pg|pino|prom-client|openapi-fetch)(\/|$)/, /^@electric-sql\/pglite/,
  /^(node:)?(fs|net|http|https|http2|tls|dgram|dns|child_process|worker_threads|cluster)(\/|$)/,
  /adapters\//, /\/service\//, /\/generated\/prisma/,
  /^(\.\.\/)+(server|worker|workers|main|cli|config|runtime)(\/|$)/,
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

it('src/core imports no I/O, no adapter, no service, no composition root, no configuration', () => {
  const offences: string[] = [];
  for (const file of files(root)) {
    const text = readFileSync(file, 'utf8');
    // from-imports and re-exports, import() and `import('x').T`, and bare side-effect imports
    for (const m of text.matchAll(/(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (FORBIDDEN.some((re) => re.test(spec))) offences.push(`${relative(root, file)} imports ${spec}`);
    }
  }
  expect(offences).toEqual([]);
});
