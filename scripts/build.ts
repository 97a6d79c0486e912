// `npm run build`: bundles each entry into dist/ with esbuild, so that production runs `node dist/…`
// with no compiler at run time (tsx compiled every module on each start: about 5 s to ready). Our
// code, the generated Prisma client and the spec are bundled; packages in node_modules are not (they
// are the production dependencies, installed beside dist/). The files read at run time are copied
// beside the bundles (src/runtime/files.ts says which, and where each layout keeps them).
import { build, type Metafile } from 'esbuild';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RUNTIME_FILES, type RuntimeFile } from '../src/runtime/files';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** dist/<name>.js from each source; the threads' entries are loaded by path (RUNTIME_FILES.yamlWorker, .workerThread) */
export const ENTRIES = {
  main: 'src/main.ts',
  worker: 'workers/reconcile.ts',
  cli: 'src/cli/main.ts',
  rebuild: 'scripts/rebuild.ts',
  [RUNTIME_FILES.yamlWorker.dist.replace(/\.js$/, '')]: RUNTIME_FILES.yamlWorker.source,
  [RUNTIME_FILES.workerThread.dist.replace(/\.js$/, '')]: RUNTIME_FILES.workerThread.source,
};

const COPIED: RuntimeFile[] = ['openapiSpec', 'docsFolder', 'migrations'];

// a bundle that imports one of these would need a compiler in production
const COMPILERS = /^(tsx|typescript|esbuild|ts-node|@swc\/|vite|vitest)(\/|$)/;

export async function buildDist(outdir = join(ROOT, 'dist')): Promise<Metafile> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([out, src]) => [out, join(ROOT, src)])),
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    // engines: the oldest Node the code must run on
    target: 'node20.6',
    packages: 'external',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  });
  const compilers = Object.entries(result.metafile.outputs).flatMap(([out, o]) =>
    o.imports.filter((i) => i.external && COMPILERS.test(i.path)).map((i) => `${relative(ROOT, out)} imports ${i.path}`));
  if (compilers.length) throw new Error(`a bundle must run without a compiler:\n${compilers.join('\n')}`);
  checkResolvable(outdir, result.metafile);
  for (const name of COPIED) {
    cpSync(join(ROOT, RUNTIME_FILES[name].source), join(outdir, RUNTIME_FILES[name].dist), { recursive: true });
  }
  return result.metafile;
}

/**
 * Every package a bundle imports must resolve as node resolves ESM, which the bundler and tsx do not
 * (an extensionless deep import such as 'ajv/dist/2020' works under tsx and fails under node): ask
 * a plain node, started from dist/, to resolve each one.
 */
function checkResolvable(outdir: string, meta: Metafile): void {
  const specifiers = [...new Set(Object.values(meta.outputs).flatMap((o) => o.imports.filter((i) => i.external && !i.path.startsWith('node:')).map((i) => i.path)))];
  const probe = join(outdir, 'resolve-check.mjs');
  // import.meta.resolve answers a URL even for a file that is not there: look for it too
  writeFileSync(probe, `import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const failed = [];
for (const s of ${JSON.stringify(specifiers)}) {
  try { if (!existsSync(fileURLToPath(import.meta.resolve(s)))) failed.push(s + ': no such file'); } catch (e) { failed.push(s + ': ' + e.message.split('\\n')[0]); }
}
if (failed.length) { console.error(failed.join('\\n')); process.exit(1); }\n`);
  try {
    execFileSync(process.execPath, [probe], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  } catch (e) {
    throw new Error(`a bundle imports what node cannot resolve from dist/:\n${String((e as { stderr?: Buffer }).stderr ?? e)}`);
  } finally {
    rmSync(probe, { force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const started = Date.now();
  const meta = await buildDist();
  const outputs = Object.keys(meta.outputs).filter((o) => o.endsWith('.js')).map((o) => relative(ROOT, o));
  console.log(`built ${outputs.join(', ')} in ${Date.now() - started} ms`);
}
