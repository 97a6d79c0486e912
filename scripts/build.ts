// `npm run build`: bundles each entry into dist/ with esbuild, so that production runs `node dist/…`
// with no compiler at run time (tsx compiled every module on each start: about 5 s to ready). Our
// code, the generated Prisma client and the spec are bundled; packages in node_modules are not (they
// are the production dependencies, installed beside dist/). The files read at run time are copied
// beside the bundles (src/runtime/files.ts says which, and where each layout keeps them).
//
// `npm start`, `npm run api` and `npm run worker` build only when dist/ is stale (scripts/ensure-dist.js,
// bin/dist-stamp.js), and any number of them may start at once in one checkout: a build holds a lock
// (dist.lock), writes into a folder of its own, puts the stamp in last and renames the folder into
// place, so no process ever sees a half-built dist/ and two builds never delete each other's files.
import { build, type Metafile } from 'esbuild';
import { cpSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RUNTIME_FILES, type RuntimeFile } from '../src/runtime/files';
import { signatureOf, stampText, staleReason, STAMP_FILE } from '../bin/dist-stamp.js';
import { withLock } from './build-lock';
import { buildConsole } from './console-build';

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

const COPIED: RuntimeFile[] = ['openapiSpec', 'docsFolder', 'migrations', 'njsScript'];

/** Inputs of every build besides the sources esbuild reads: what decides how it bundles and resolves. */
const BUILD_CONFIG = ['package.json', 'package-lock.json', 'tsconfig.json', 'scripts/build.ts', 'scripts/build-lock.ts', 'bin/dist-stamp.js', 'src/runtime/files.ts'];

/** The folders whose files may be inputs, stat-ed before the build reads any of them. */
const SOURCE_TREES = ['src', 'workers', 'scripts', 'prisma/migrations', 'console/src'];

// a bundle that imports one of these would need a compiler in production
const COMPILERS = /^(tsx|typescript|esbuild|ts-node|@swc\/|vite|vitest)(\/|$)/;

/** Builds dist/ when the stamp says it is stale (or missing); 'current' when it was already. */
export async function ensureDist(outdir = join(ROOT, 'dist')): Promise<{ built: false } | { built: true; metafile: Metafile; reason: string }> {
  if (staleReason(ROOT, outdir) === null) return { built: false };
  return withLock(`${outdir}.lock`, async () => {
    // another start may have built it while this one waited for the lock
    const reason = staleReason(ROOT, outdir);
    if (reason === null) return { built: false } as const;
    return { built: true, metafile: await buildUnlocked(outdir), reason } as const;
  });
}

/** Builds dist/ whatever its stamp says (`npm run build`). */
export async function buildDist(outdir = join(ROOT, 'dist')): Promise<Metafile> {
  return withLock(`${outdir}.lock`, () => buildUnlocked(outdir));
}

async function buildUnlocked(finalDir: string): Promise<Metafile> {
  // the inputs as they are before esbuild reads them: a file changed during the build then differs
  // from its stamp, and the next start builds again
  const before = signatures(SOURCE_TREES);
  const outdir = `${finalDir}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  try {
    mkdirSync(outdir, { recursive: true });
    // the console (a browser bundle, by vite) beside the service's bundles; its inputs join the stamp's
    const [metafile, consoleInputs] = await Promise.all([bundleInto(outdir), buildConsole(join(outdir, RUNTIME_FILES.consoleFolder.dist))]);
    writeFileSync(join(outdir, STAMP_FILE), stampText(inputsOf(metafile, before, consoleInputs)));
    moveIntoPlace(outdir, finalDir);
    return metafile;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Every file and folder under the trees, relative to the root, with its signature. */
function signatures(trees: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    const sig = signatureOf(ROOT, rel);
    if (sig === null) return;
    out.set(rel, sig);
    if (!sig.startsWith('d:')) return;
    for (const e of readdirSync(join(ROOT, rel))) walk(`${rel}/${e}`);
  };
  for (const t of trees) walk(t);
  return out;
}

/** What the stamp lists: each bundled source (the console's too) and its folder, each copied file and folder, the build's configuration. */
function inputsOf(meta: Metafile, before: Map<string, string>, consoleInputs: string[]): Record<string, string | null> {
  const paths = new Set<string>(BUILD_CONFIG);
  for (const rel of consoleInputs) {
    paths.add(rel);
    // console/ itself also holds console/dist, the build from the sources, which comes and goes
    if (dirname(rel) !== 'console') paths.add(dirname(rel));
  }
  for (const input of Object.keys(meta.inputs)) {
    const rel = relative(ROOT, resolve(ROOT, input)).split(sep).join('/');
    if (rel.startsWith('..') || rel.includes('node_modules/')) continue;
    paths.add(rel);
    // a folder's mtime moves when a file is added to it or removed: a new file that an import now
    // resolves to instead (foo/index.ts beside foo.ts) makes the build stale too
    paths.add(dirname(rel));
  }
  for (const name of COPIED) {
    const source = RUNTIME_FILES[name].source;
    for (const p of before.keys()) if (p === source || p.startsWith(`${source}/`)) paths.add(p);
    paths.add(source);
  }
  return Object.fromEntries([...paths].sort().map((p) => [p, before.get(p) ?? signatureOf(ROOT, p)]));
}

/**
 * Puts the finished build where `finalDir` is, by rename: a process starting meanwhile runs either the
 * old build or the new one, whole. A folder cannot be renamed over a non-empty one, so the old one is
 * first renamed aside (for the microseconds between the two renames there is no dist/ at all, which the
 * launcher and the lock-holding starts allow for) and removed after.
 */
function moveIntoPlace(built: string, finalDir: string): void {
  for (let attempt = 0; ; attempt++) {
    try {
      renameSync(built, finalDir);
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || attempt > 10) throw e;
      const old = `${finalDir}.old-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
      try {
        renameSync(finalDir, old);
      } catch (e2) {
        if ((e2 as NodeJS.ErrnoException).code !== 'ENOENT') throw e2;
      }
      rmSync(old, { recursive: true, force: true });
    }
  }
}

async function bundleInto(outdir: string): Promise<Metafile> {
  const common = {
    absWorkingDir: ROOT,
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
  } as const;
  const entry = (names: string[]) => Object.fromEntries(names.map((out) => [out, join(ROOT, ENTRIES[out])]));
  const [service, cli] = await Promise.all([
    build({ ...common, entryPoints: entry(Object.keys(ENTRIES).filter((e) => e !== 'cli')) }),
    // the command line in chunks, so that each command loads only its own code and packages (a `get`
    // starts in about half the time); chunks sit beside the bundles, where src/runtime/files.ts looks
    build({ ...common, entryPoints: entry(['cli']), splitting: true, chunkNames: 'cli-[name]-[hash]' }),
  ]);
  const result = { metafile: { inputs: { ...service.metafile.inputs, ...cli.metafile.inputs }, outputs: { ...service.metafile.outputs, ...cli.metafile.outputs } } };
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

// `tsx scripts/build.ts` builds; with --if-stale (what scripts/ensure-dist.js runs) only when dist/ is stale
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const started = Date.now();
  const outcome = process.argv.includes('--if-stale') ? await ensureDist() : { built: true as const, metafile: await buildDist(), reason: '' };
  if (outcome.built) {
    const outputs = Object.entries(outcome.metafile.outputs).filter(([, o]) => o.entryPoint).map(([out]) => relative(dirname(out), out));
    console.log(`built dist/: ${outputs.join(', ')} in ${Date.now() - started} ms${outcome.reason ? ` (${outcome.reason})` : ''}`);
  }
}
