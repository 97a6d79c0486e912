// Worker threads started from an entry of the build. Built, the entry is a bundle of its own in
// dist/, run as it is. From the sources it is TypeScript: the thread registers tsx first (an
// --import in execArgv does not reach a worker's own module loading on Node 20), whether this
// process runs under tsx or vitest. tsx is looked up only then: production has no compiler.
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { BUNDLED, runtimeUrl, type RuntimeFile } from './files';

const BOOT = `const { workerData } = require('node:worker_threads');
import(workerData.tsx).then((api) => { api.register(); return import(workerData.entry); });`;

export function spawnThread(entryFile: RuntimeFile, options: Omit<WorkerOptions, 'eval' | 'workerData'> = {}): Worker {
  const entry = runtimeUrl(entryFile);
  if (BUNDLED) return new Worker(entry, options);
  const tsx = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;
  return new Worker(BOOT, { ...options, eval: true, workerData: { tsx, entry: entry.href } });
}
