// The embedded database's folder belongs to one process: a second one on the same folder would run
// beside the first, and PGlite's files do not survive two writers (an acknowledged write vanished).
// The lock is a file holding the owner's pid, created exclusively; one left by a process that is
// gone is taken over.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { StartupError } from '../../runtime/startup-error';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock of `dir`; answers its release. */
export function lockDataDir(dir: string): () => void {
  const file = `${dir}.lock`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off('exit', release);
        try { unlinkSync(file); } catch { /* already gone */ }
      };
      process.on('exit', release);
      return release;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
      if (Number.isInteger(owner) && owner !== process.pid && alive(owner))
        throw new StartupError(`the data folder ${dir} is in use by process ${owner}: stop it, or give this one another SWITCHYARD_DATA_DIR`);
      try { unlinkSync(file); } catch { /* another process took it over first */ }
    }
  }
  throw new StartupError(`could not take the lock ${file}`);
}
