// The console's bundle (console/ → one HTML page, its script and its stylesheet), built with vite. The
// service build (scripts/build.ts) puts it in dist/console; run from the sources (tests, `npm run dev`)
// the API serves console/dist, which `tsx scripts/console-build.ts` (or a test's setup) writes.
import { build, type Rolldown } from 'vite';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { relative, resolve, sep } from 'node:path';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CONSOLE_ROOT = resolve(ROOT, 'console');
/** the console's own inputs besides the modules the bundle lists (which include what it takes from src/core) */
export const CONSOLE_CONFIG = ['console/index.html', 'console/tsconfig.json', 'scripts/console-build.ts'];

/** Builds the console into `outDir`; answers the repository files it read, relative to the root. */
export async function buildConsole(outDir: string): Promise<string[]> {
  const out = await build({
    configFile: false,
    root: CONSOLE_ROOT,
    // every address the page uses is under /console, the path the API serves it at
    base: '/console/',
    logLevel: 'warn',
    // the console must not depend on what a user's machine has (a .env, a public/ folder)
    envDir: false,
    publicDir: false,
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      outDir,
      emptyOutDir: true,
      // the budget is what a browser downloads; maps stay out of it and out of the server
      sourcemap: false,
      // no modulepreload polyfill: it would be the only script the policy has to allow beyond the bundle
      modulePreload: { polyfill: false },
      target: 'es2022',
      assetsInlineLimit: 0,
    },
  });
  const outputs = (Array.isArray(out) ? out : [out]) as Rolldown.RolldownOutput[];
  const files = new Set<string>(CONSOLE_CONFIG);
  for (const o of outputs) {
    for (const chunk of o.output ?? []) {
      if (chunk.type !== 'chunk') continue;
      for (const id of chunk.moduleIds) {
        const rel = relative(ROOT, id.split('?')[0]).split(sep).join('/');
        if (!rel.startsWith('..') && !rel.includes('node_modules/') && !rel.startsWith('\0')) files.add(rel);
      }
    }
  }
  files.add('console/src/styles.css');
  return [...files].sort();
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const started = Date.now();
  await buildConsole(resolve(CONSOLE_ROOT, 'dist'));
  console.log(`built console/dist in ${Date.now() - started} ms`);
}
