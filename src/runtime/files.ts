// The files the service reads at run time, in the two layouts it runs from. From the sources (tsx,
// vitest) each sits where it is kept in the repository; the build (scripts/build.ts) bundles every
// entry into dist/ and copies these files beside the bundles, since a bundle is one file per entry
// and the modules' own relative paths no longer hold there. Which layout this is, the module's own
// URL says: only the sources are .ts.
import { fileURLToPath } from 'node:url';

export const RUNTIME_FILES = {
  openapiSpec: { source: 'src/generated/openapi.json', dist: 'openapi.json' },
  docsFolder: { source: 'src/adapters/http/docs', dist: 'docs' },
  // built, not copied: scripts/console-build.ts writes it (from the sources: console/dist)
  consoleFolder: { source: 'console/dist', dist: 'console' },
  migrations: { source: 'prisma/migrations', dist: 'migrations' },
  // the njs dispatch nginx runs (`switchyard nginx`): a static script, read by nginx itself
  njsScript: { source: 'src/nginx-agent/njs/switchyard.js', dist: 'nginx/switchyard.js' },
  // an entry of the build of its own, not a copy: it runs in a worker thread
  yamlWorker: { source: 'src/service/yaml-worker.ts', dist: 'yaml-worker.js' },
  // the reconcile worker on a thread of `npm start`'s process (src/runtime/reconcile-thread.ts)
  workerThread: { source: 'src/worker-thread.ts', dist: 'worker-thread.js' },
} as const;

export type RuntimeFile = keyof typeof RUNTIME_FILES;

/** true when running the built bundles in dist/, false when running the TypeScript sources */
export const BUNDLED = !import.meta.url.endsWith('.ts');

// the repository root from src/runtime/, or dist/ itself from a bundle
const base = new URL(BUNDLED ? './' : '../../', import.meta.url);

export function runtimeUrl(name: RuntimeFile): URL {
  return new URL(BUNDLED ? RUNTIME_FILES[name].dist : RUNTIME_FILES[name].source, base);
}

export function runtimePath(name: RuntimeFile): string {
  return fileURLToPath(runtimeUrl(name));
}
