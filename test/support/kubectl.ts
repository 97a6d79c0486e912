// The real kubectl against a test server: a kubeconfig for a token (over TLS with the server's own
// certificate, as kubectl sends tokens over TLS only), and a runner. Where kubectl is absent the
// tests that need it are skipped, with the reason printed.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubeconfig } from '../../src/core/kube/kubeconfig';
import type { TestServer } from './server';
import { tempDir } from './temp-dir';

export const KUBECTL = process.env.KUBECTL || 'kubectl';

/** Why kubectl tests cannot run here, or null when they can. */
export function kubectlMissing(): string | null {
  const r = spawnSync(KUBECTL, ['version', '--client'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return `kubectl not found (${KUBECTL}): install it (https://kubernetes.io/docs/tasks/tools/) or set KUBECTL`;
  return null;
}

export interface Kubectl {
  run(args: string[], opts?: { input?: string }): Promise<{ code: number; stdout: string; stderr: string }>;
  spawn(args: string[]): ChildProcess;
  home: string;
}

export function kubectlFor(s: TestServer, token: string, name = 'user'): Kubectl {
  const home = tempDir('sy-kubectl-');
  const ca = readFileSync(join(s.running.ctx.config.dataDir, 'kube-tls.crt'), 'utf8');
  const file = join(home, 'kubeconfig');
  writeFileSync(file, kubeconfig(`https://127.0.0.1:${s.running.port}/k8s`, name, token, ca), { mode: 0o600 });
  // a HOME of its own: no discovery cache shared with another server
  const env = { ...process.env, KUBECONFIG: file, HOME: home, KUBECACHEDIR: join(home, 'cache') };
  return {
    home,
    run(args, opts = {}) {
      return new Promise((resolve) => {
        const child = execFile(KUBECTL, args, { env, timeout: 60_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
          const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
          resolve({ code, stdout, stderr });
        });
        if (opts.input !== undefined) child.stdin?.end(opts.input);
      });
    },
    spawn(args) {
      return spawn(KUBECTL, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    },
  };
}
