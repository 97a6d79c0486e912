// Whether dist/ was built from the files as they are now. The build (scripts/build.ts) writes
// dist/build-stamp.json last, listing every file it read (each bundled source, each copied file, its
// own configuration) and the folders holding them, each with its size, mtime and ctime as they were
// before it read them. Checking is stat-ing those paths again: a few milliseconds, no hashing, so the
// `switchyard` launcher can afford it on every call. Any difference (an edit, a file added to or
// removed from a folder, an input gone) or no stamp at all means stale. ctime is compared too because
// a copy that keeps mtimes (cp -p, tar, rsync -a) cannot set it back.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const STAMP_FILE = 'build-stamp.json';
const FORMAT = 1;

/** What the stamp records of one path: kind, size, mtime and ctime in ns; null when it is not there. */
export function signatureOf(root, path) {
  try {
    const s = statSync(join(root, path), { bigint: true });
    return `${s.isDirectory() ? 'd' : 'f'}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return null;
  }
}

/** The stamp's text for inputs given as { path: signature } (paths relative to the root). */
export function stampText(inputs) {
  return JSON.stringify({ format: FORMAT, builtAt: new Date().toISOString(), inputs }) + '\n';
}

/** Why `distDir` is not the build of the files under `root` as they are now, or null when it is. */
export function staleReason(root, distDir = join(root, 'dist')) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(distDir, STAMP_FILE), 'utf8'));
  } catch {
    return 'it has no build stamp (never built, or built before stamps)';
  }
  if (stamp?.format !== FORMAT || typeof stamp.inputs !== 'object' || stamp.inputs === null) return 'its build stamp is of another format';
  for (const [path, signature] of Object.entries(stamp.inputs)) {
    const now = signatureOf(root, path);
    if (now !== signature) return now === null ? `${path} is gone` : `${path} changed`;
  }
  return null;
}
