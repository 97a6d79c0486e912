// `npm start`, `npm run api`, `npm run worker` and `npm run proxy` run this first: nothing when dist/
// is the build of the files as they are (a few ms, plain node), else the build, which waits for any
// build already under way in this checkout and then builds only if that one did not leave dist/ current.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { staleReason } from '../bin/dist-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
if (staleReason(root) !== null) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--if-stale'], { cwd: root, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
