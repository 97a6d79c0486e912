// A folder of generated files made afresh in a temporary folder (`made`): written over `target`, or,
// with check, compared file by file (each stale one named) so that gen:check can fail CI.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The files under `dir`, as paths relative to it, sorted. */
export function files(dir: string, base = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p, base) : [relative(base, p)];
  }).sort();
}

/** Writes `made` over `root/target`, or (check) counts the files that differ; removes `made` either way. */
export function syncGenerated(root: string, target: string, made: string, check: boolean): number {
  const dir = join(root, target);
  try {
    if (!check) {
      rmSync(dir, { recursive: true, force: true });
      cpSync(made, dir, { recursive: true });
      return 0;
    }
    const want = files(made);
    const have = files(dir);
    let stale = 0;
    for (const f of new Set([...want, ...have])) {
      const a = want.includes(f) ? readFileSync(join(made, f), 'utf8') : null;
      const b = have.includes(f) ? readFileSync(join(dir, f), 'utf8') : null;
      if (a !== b) {
        console.error(`stale: ${join(target, f)} (run npm run gen)`);
        stale++;
      }
    }
    return stale;
  } finally {
    rmSync(made, { recursive: true, force: true });
  }
}
