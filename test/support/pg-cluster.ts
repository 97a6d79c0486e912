// A PostgreSQL of a test's own: a throwaway cluster (initdb) in a temp folder on a port of its own,
// which the test stops and starts to make outages. Where the server binaries are not installed,
// `pgBinaries()` says why, for the test to skip with that reason.
import { spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { chownSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir';

export interface PgCluster {
  /** a database URL for `postgres` on this cluster */
  url: string;
  port: number;
  /** `immediate`: as a crash (no shutdown checkpoint, connections cut) */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** stops the server and removes its folder */
  destroy(): Promise<void>;
}

/** The folder holding initdb and pg_ctl, or why there is none. */
export function pgBinaries(): { bin: string } | { missing: string } {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) return { missing: `no PostgreSQL server binaries (initdb, pg_ctl) under ${root}/*/bin` };
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return { missing: 'running as root and no "postgres" user to run initdb as' };
  return { bin: join(root, versions[0], 'bin') };
}

/** initdb refuses root: as root, the cluster's programs run as the postgres user. */
function runAs(): Pick<SpawnOptions, 'uid' | 'gid'> {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres']).stdout.toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

function run(cmd: string, args: string[], opts: SpawnOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

export async function startPgCluster(): Promise<PgCluster> {
  const found = pgBinaries();
  if ('missing' in found) throw new Error(found.missing);
  const { bin } = found;
  const user = runAs();
  const dir = tempDir('sy-pg-');
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid!);
  const data = join(dir, 'data');
  await run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'], user);
  let port = 0;
  const start = async () => {
    // fsync off keeps the restarts quick and loses nothing when only PostgreSQL crashes (the OS keeps
    // what it was given); synchronous_commit stays on: off, an "immediate" stop lost commits already
    // acknowledged, which a worker had already read and computed status from
    await run(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`, 'start'], user);
  };
  for (let attempt = 0; ; attempt++) {
    port = 17000 + Math.floor(Math.random() * 3000);
    try {
      await start();
      break;
    } catch (e) {
      if (attempt >= 4) {
        rmSync(dir, { recursive: true, force: true });
        throw e;
      }
    }
  }
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    await run(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', '-t', '60', 'stop'], user).catch((e: Error) => {
      if (!/Is server running|no server running/i.test(e.message)) throw e;
    });
  };
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    async destroy() {
      await stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
