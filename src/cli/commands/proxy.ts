// switchyard proxy --gateway NS/NAME [...] | --mesh NS: the reference proxy (a Gateway's, or the
// outbound proxy of a mesh namespace's clients). It runs until SIGTERM or SIGINT,
// then stops accepting, lets requests in flight finish and exits.
import { hostname } from 'node:os';
import { GATEWAY_ARG as GATEWAY, intOption, UsageError } from '../args';
import { HELP, type Command, type Context } from '../command';


export const proxyCommand: Command = {
  name: 'proxy',
  usage: 'switchyard proxy --gateway NS/NAME [--gateway NS/NAME ...] [--port-offset N] [--admin-port P]\n       switchyard proxy --mesh NS [--mesh-port P] [--admin-port P]',
  options: [
    { name: 'gateway', type: 'list', value: 'NS/NAME', help: 'a Gateway to serve (repeat for more)' },
    { name: 'mesh', type: 'string', value: 'NS', help: 'be the outbound proxy of the clients in namespace NS (GAMMA): an HTTP proxy (absolute URLs, CONNECT) routing by the mesh table of NS' },
    { name: 'mesh-port', type: 'string', value: 'P', help: 'with --mesh: the port clients reach the proxy on (default 15001; 0: any free port)' },
    { name: 'port-offset', type: 'string', value: 'N', help: 'bind each listener port + N (default 0), for unprivileged runs' },
    { name: 'admin-port', type: 'string', value: 'P', help: '/healthz, /readyz and /metrics (default 15000; 0: any free port)' },
    { name: 'host', type: 'string', value: 'ADDR', help: 'the address to listen on (default 0.0.0.0)' },
    { name: 'udp-idle-ms', type: 'string', value: 'MS', help: 'how long a UDP session lives without a datagram either way (default 60000)' },
    { name: 'id', type: 'string', value: 'ID', help: 'how this proxy is named in its reports (default HOSTNAME-PID)' },
    HELP,
  ],
  details: 'Environment: SWITCHYARD_URL (the API), SWITCHYARD_TOKEN (a proxy token of these Gateways),\nACCESS_LOG=off to silence the per-request log lines, LOG_LEVEL.',
  async run({ positionals, options }, ctx: Context) {
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const gateways = (options.gateway as string[] | undefined) ?? [];
    const mesh = options.mesh as string | undefined;
    if (mesh !== undefined) {
      if (gateways.length) throw new UsageError('--mesh and --gateway are separate proxies: run one of each');
      if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(mesh)) throw new UsageError(`--mesh "${mesh}" is not a namespace name`);
      if (!ctx.env.token) throw new UsageError('SWITCHYARD_TOKEN must hold a proxy token with this mesh scope');
      const { startMeshProxy } = await import('../../proxy/mesh-proxy');
      const proxy = await startMeshProxy({
        url: ctx.env.url, token: ctx.env.token, namespace: mesh, port: intOption(options['mesh-port'], 'mesh-port', 0, 65535, 15001),
        adminPort: intOption(options['admin-port'], 'admin-port', 0, 65535, 15000), host: (options.host as string | undefined) ?? '0.0.0.0',
        accessLog: process.env.ACCESS_LOG !== 'off', logLevel: process.env.LOG_LEVEL,
      });
      await new Promise<void>((resolve) => {
        const stop = () => void proxy.stop().then(resolve);
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      });
      return 0;
    }
    if (gateways.length === 0) throw new UsageError('proxy needs at least one --gateway NS/NAME, or --mesh NS');
    for (const g of gateways) if (!GATEWAY.test(g)) throw new UsageError(`--gateway "${g}" is not NAMESPACE/NAME`);
    if (!ctx.env.token) throw new UsageError('SWITCHYARD_TOKEN must hold a proxy token');
    const portOffset = intOption(options['port-offset'], 'port-offset', 0, 65535, 0);
    const adminPort = intOption(options['admin-port'], 'admin-port', 0, 65535, 15000);
    const udpIdleMs = intOption(options['udp-idle-ms'], 'udp-idle-ms', 1, 3_600_000, 60_000);
    const { startProxy } = await import('../../proxy/proxy');
    const proxy = await startProxy({
      url: ctx.env.url, token: ctx.env.token, gateways: [...new Set(gateways)], portOffset, adminPort,
      host: (options.host as string | undefined) ?? '0.0.0.0', id: (options.id as string | undefined) ?? `${hostname()}-${process.pid}`, accessLog: process.env.ACCESS_LOG !== 'off', logLevel: process.env.LOG_LEVEL, udpIdleMs,
    });
    await new Promise<void>((resolve) => {
      const stop = () => void proxy.stop().then(resolve);
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
    return 0;
  },
};
