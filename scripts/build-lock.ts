// One build of dist/ at a time in a checkout: the lock is a file made with O_EXCL that names its
// holder's pid, and whose mtime the holder renews every second. A lock whose holder is gone (its pid
// no longer runs, or it has not renewed for STALE_MS: a killed build, a pid reused) is taken over.
// Builds stay correct without the lock (each writes a folder of its own and renames it into place);
// the lock keeps a second start from building the same thing again, on a machine that has no cores
// to spare.
import { closeSync, openSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';

const RENEW_MS = 1000;
const STALE_MS = 30_000;
const POLL_MS = 100;

export async function withLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  await acquire(path);
  const renew = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(path, now, now);
    } catch {
      /* taken over as stale: the build goes on, and stays correct without it */
    }
  }, RENEW_MS);
  const release = () => {
    try {
      if (holder(path) === process.pid) unlinkSync(path);
    } catch {
      /* already gone */
    }
  };
  process.once('exit', release);
  try {
    return await work();
  } finally {
    clearInterval(renew);
    process.off('exit', release);
    release();
  }
}

async function acquire(path: string): Promise<void> {
  let told = false;
  for (;;) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const pid = holder(path);
    if (isStale(path, pid)) {
      // moved aside under a name of this process's own, so that of two starts that both found it
      // stale only one removes it (the other's rename fails), never a lock taken meanwhile
      const aside = `${path}.stale-${process.pid}`;
      try {
        renameSync(path, aside);
        if (holder(aside) === pid) unlinkSync(aside);
        else renameSync(aside, path); // not the stale one after all: put it back
      } catch {
        /* someone else took it over first */
      }
      continue;
    }
    if (!told) {
      process.stderr.write(`waiting for another build of dist/ (pid ${pid ?? '?'}) to finish\n`);
      told = true;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function holder(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** No pid yet (a holder between making the file and writing it) is stale only by age. */
function isStale(path: string, pid: number | null): boolean {
  try {
    if (Date.now() - statSync(path).mtimeMs > STALE_MS) return true;
  } catch {
    return false; // gone: try to take it at once
  }
  if (pid === null) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
