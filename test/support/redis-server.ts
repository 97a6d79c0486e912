// A Redis of a test's own: a throwaway redis-server on its own port that keeps nothing on disk,
// so that killing it and starting it again is a Redis restarted empty.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tempDir } from './temp-dir';

export const HAS_REDIS_SERVER = spawnSync('redis-server', ['--version']).status === 0;

export interface RedisServer {
  url: string;
  port: number;
  start(): Promise<void>;
  /** SIGKILL: everything it held is gone */
  kill(): Promise<void>;
  /** killed, and its folder removed */
  destroy(): Promise<void>;
}

export function redisServer(port = 16400 + Math.floor(Math.random() * 1000)): RedisServer {
  const dir = tempDir('sy-redis-');
  let child: ChildProcess | null = null;
  const kill = () => new Promise<void>((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
      for (let i = 0; i < 100; i++) {
        if (spawnSync('redis-cli', ['-p', String(port), 'ping']).stdout?.toString().trim() === 'PONG') return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`redis-server on port ${port} did not start`);
    },
    kill,
    async destroy() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
