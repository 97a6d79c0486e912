// The nginx the agent talks to. Supervised: the agent starts the master itself (in the foreground,
// `daemon off`, so that it is the agent's child and its workers under it), restarts it if it dies,
// and stops it gracefully (SIGQUIT: workers finish what they serve) when the agent stops.
// External: someone else runs nginx with the configuration the agent writes; the agent only signals
// it to reload (by the pid file the configuration names, else `nginx -s reload`).
// A reload is SIGHUP to the master, nginx's graceful reload: new workers take the listening sockets,
// old ones finish their connections and requests in flight, then exit. Whether the new configuration
// is the one serving is read from the status socket the configuration carries.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { runNginx } from './files';

export interface NginxProcessOptions {
  bin: string;
  dir: string;
  /** the configuration file nginx runs */
  conf: string;
  external: boolean;
  onOutput?: (line: string) => void;
  onExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

export class NginxProcess {
  private child: ChildProcess | null = null;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private restarts = 0;

  constructor(private readonly o: NginxProcessOptions) {}

  get pid(): number | undefined {
    if (!this.o.external) return this.child?.pid ?? undefined;
    const file = join(this.o.dir, 'nginx.pid');
    if (!existsSync(file)) return undefined;
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  }

  get running(): boolean {
    return this.o.external ? this.pid !== undefined : !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the supervised master (the configuration must have passed nginx -t). */
  start(): void {
    if (this.o.external || this.running || this.stopping) return;
    const child = spawn(this.o.bin, ['-p', this.o.dir, '-c', this.o.conf, '-g', 'daemon off; master_process on;'], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const lines = (d: Buffer) => { for (const l of d.toString().split('\n')) if (l.trim()) this.o.onOutput?.(l); };
    child.stdout!.on('data', lines);
    child.stderr!.on('data', lines);
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      this.o.onExit?.(code, signal);
      if (this.stopping) return;
      // the master died under us: start it again, a little later each time
      const delay = Math.min(10_000, 200 * 2 ** Math.min(this.restarts++, 6));
      this.restartTimer = setTimeout(() => this.start(), delay);
      this.restartTimer.unref();
    });
  }

  /** Graceful reload; resolves once signalled (see configId for when it took effect). */
  async reload(): Promise<void> {
    const pid = this.pid;
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGHUP');
        return;
      } catch {
        // the pid file is stale: ask nginx itself
      }
    }
    if (this.o.external) {
      // not running yet, or starting (its pid file not written yet): whoever runs it starts it on this
      // configuration, which the agent waits to see
      if (pid === undefined) return;
      const r = await runNginx(this.o.bin, ['-p', this.o.dir, '-c', this.o.conf, '-s', 'reload']);
      if (!r.ok) throw new Error(`nginx -s reload: ${r.output}`);
      return;
    }
    this.start();
  }

  /** The configuration id nginx's workers serve now (the status socket), or undefined when none answers. */
  configId(): Promise<string | undefined> {
    return new Promise((resolve) => {
      const req = http.get({ socketPath: join(this.o.dir, 'run', 'status.sock'), path: '/switchyard/config', agent: false, timeout: 2000 }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(res.statusCode === 200 ? body.trim() : undefined));
        res.on('error', () => resolve(undefined));
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(undefined));
    });
  }

  /**
   * The master's worker processes that still accept connections (not "shutting down"): after a
   * reload, the old ones stop accepting only once they have read the master's signal, and until
   * then a new connection may still reach the old configuration.
   */
  acceptingWorkers(): number[] {
    const master = this.pid;
    if (master === undefined) return [];
    const out: number[] = [];
    for (const e of readdirSync('/proc')) {
      if (!/^\d+$/.test(e)) continue;
      try {
        const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid !== master) continue;
        const title = readFileSync(`/proc/${e}/cmdline`, 'utf8');
        if (title.includes('worker process') && !title.includes('shutting down')) out.push(Number(e));
      } catch {
        // the process ended meanwhile
      }
    }
    return out;
  }

  /** Stops the supervised nginx: SIGQUIT (graceful), SIGTERM after `graceMs`, SIGKILL after as long again. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (this.o.external || !child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGQUIT');
    const timer = setTimeout(() => child.kill('SIGTERM'), graceMs);
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs * 2);
    await exited;
    clearTimeout(timer);
    clearTimeout(killer);
  }
}
