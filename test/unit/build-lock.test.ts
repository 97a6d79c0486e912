// The lock that keeps two builds of dist/ in one checkout from running at once: a second build waits
// for a live holder, and takes over a lock whose holder is gone (a build killed mid-way).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withLock } from '../../scripts/build-lock';
import { tempDir } from '../support/temp-dir';

/** The pid of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

describe('the build lock', () => {
  it('holds the lock file with its pid while the work runs, and removes it after', async () => {
    const lock = join(tempDir('sy-lock-'), 'dist.lock');
    const seen = await withLock(lock, async () => readFileSync(lock, 'utf8'));
    expect(seen).toBe(`${process.pid}\n`);
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose holder is gone', async () => {
    const lock = join(tempDir('sy-lock-'), 'dist.lock');
    writeFileSync(lock, `${deadPid()}\n`);
    expect(await withLock(lock, async () => readFileSync(lock, 'utf8'))).toBe(`${process.pid}\n`);
  });

  it('waits for a live holder, then runs', async () => {
    const lock = join(tempDir('sy-lock-'), 'dist.lock');
    writeFileSync(lock, `${process.ppid}\n`); // alive for as long as this test runs
    const order: string[] = [];
    setTimeout(() => {
      order.push('released');
      unlinkSync(lock);
    }, 300);
    await withLock(lock, async () => void order.push('ran'));
    expect(order).toEqual(['released', 'ran']);
  });

  it('lets one of two at once run at a time', async () => {
    const lock = join(tempDir('sy-lock-'), 'dist.lock');
    let inside = 0;
    let most = 0;
    const work = () => withLock(lock, async () => {
      most = Math.max(most, ++inside);
      await new Promise((r) => setTimeout(r, 150));
      inside--;
    });
    await Promise.all([work(), work(), work()]);
    expect(most).toBe(1);
  });
});
