// nginx programmed by `switchyard nginx` as a data plane of the conformance runner
// (test/support/conformance-runner.ts): each Gateway gets an agent of its own, which runs its own
// nginx under a temporary prefix, with its own port offset; what the renderer says nginx cannot
// honour is read from the agent's log.
import { startNginxAgentProcess } from './nginx-process';
import { NGINX } from './nginx';
import type { DataPlane } from './conformance-runner';

export const NGINX_PLANE: DataPlane = {
  title: 'nginx programmed by switchyard nginx',
  short: 'nginx',
  ...(NGINX.available ? {} : { unavailable: NGINX.why }),
  addressInUse: /EADDRINUSE|Address already in use/,
  async start(apiUrl, token, gw, offset) {
    const proc = await startNginxAgentProcess(apiUrl, token, ['--gateway', gw, '--port-offset', String(offset), '--id', `corpus-nginx-${gw.replace('/', '-')}`]);
    return { admin: proc.admin, output: proc.output, stop: () => proc.stop('SIGTERM') };
  },
  gapsOf: (output) => [...output.matchAll(/"gaps":(\[[^\]]*\])/g)].flatMap((m) => JSON.parse(m[1]) as string[]),
};
