// Whether nginx and its njs modules are here (Debian's nginx, libnginx-mod-http-js,
// libnginx-mod-stream, libnginx-mod-stream-js), and a check of a rendered configuration by
// `nginx -t`. Tests that need nginx skip with NGINX.why when it is not.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { NginxRender } from '../../src/core/nginx';
import { writeCandidate } from '../../src/nginx-agent/files';
import { runtimePath } from '../../src/runtime/files';

const BIN = process.env.NGINX_BIN ?? '/usr/sbin/nginx';
const MODULES = process.env.NGINX_MODULES_DIR ?? '/usr/lib/nginx/modules';
const NEEDED = ['ngx_http_js_module.so', 'ngx_stream_module.so', 'ngx_stream_js_module.so'];

function probe(): { available: boolean; why: string } {
  if (!existsSync(BIN)) return { available: false, why: `no nginx at ${BIN} (apt-get install nginx libnginx-mod-http-js libnginx-mod-stream libnginx-mod-stream-js)` };
  const missing = NEEDED.filter((m) => !existsSync(`${MODULES}/${m}`));
  if (missing.length) return { available: false, why: `nginx has no ${missing.join(', ')} in ${MODULES} (apt-get install libnginx-mod-http-js libnginx-mod-stream libnginx-mod-stream-js)` };
  try {
    execFileSync(BIN, ['-v'], { stdio: 'ignore' });
  } catch (e) {
    return { available: false, why: `${BIN} -v failed: ${(e as Error).message}` };
  }
  return { available: true, why: '' };
}

const PACKAGES = ['nginx', 'libnginx-mod-http-js', 'libnginx-mod-stream', 'libnginx-mod-stream-js'];

/** Where nginx or a module is missing and this is root on Debian: apt-get install them, bounded (as .ci/run does). */
function installed(): { available: boolean; why: string } {
  const first = probe();
  if (first.available || process.env.NGINX_BIN || process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) return first;
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    try {
      execFileSync('apt-get', ['install', '-y', '-q', ...PACKAGES], { stdio: 'ignore', timeout: 240_000, env });
    } catch {
      execFileSync('apt-get', ['update', '-q'], { stdio: 'ignore', timeout: 120_000, env });
      execFileSync('apt-get', ['install', '-y', '-q', ...PACKAGES], { stdio: 'ignore', timeout: 240_000, env });
    }
  } catch (e) {
    return { available: false, why: `${first.why}; apt-get could not install them: ${(e as Error).message.split('\n')[0]}` };
  }
  return probe();
}

export const NGINX = { ...installed(), bin: BIN, modulesDir: MODULES, njsScript: runtimePath('njsScript') };

/** nginx -t's message for the configuration written in dir, or undefined when nginx accepts it. */
export function nginxCheck(dir: string, r: NginxRender): string | undefined {
  const conf = writeCandidate(dir, r);
  try {
    execFileSync(BIN, ['-t', '-q', '-p', dir, '-c', conf], { stdio: 'pipe' });
    return undefined;
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    return err.stderr?.toString() || err.message;
  }
}
