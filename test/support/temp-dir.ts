// Directories the tests make under the system's temporary directory (a server's data directory, a
// CLI's home, certificates), removed once the test file that made them is done (see
// test/support/cleanup.ts): four CI runs left some 300 behind.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A new directory named `prefix` and a random suffix, removed after the test file that asked for it. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes the directories made so far. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // a process a test started still writing into it: what is left is left, the run is not failed for it
    }
  }
}
