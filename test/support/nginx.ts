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

export const NGINX = { ...probe(), bin: BIN, modulesDir: MODULES, njsScript: runtimePath('njsScript') };

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
