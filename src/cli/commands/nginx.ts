// switchyard nginx --gateway NS/NAME [...]: programs a stock nginx from the Gateways' snapshots. By
// default it runs nginx itself under --prefix DIR (master and workers its children, stopped with
// it); with --external --conf FILE it writes the configuration of an nginx someone else runs and
// reloads it. It runs until SIGTERM or SIGINT.
import { hostname } from 'node:os';
import { GATEWAY_ARG as GATEWAY, intOption, UsageError } from '../args';
import { HELP, type Command, type Context } from '../command';


export const nginxCommand: Command = {
  name: 'nginx',
  usage: 'switchyard nginx --gateway NS/NAME [--gateway NS/NAME ...] [--prefix DIR | --external --conf FILE] [--port-offset N] [--admin-port P]',
  options: [
    { name: 'gateway', type: 'list', value: 'NS/NAME', help: 'a Gateway to serve (repeat for more)' },
    { name: 'prefix', type: 'string', value: 'DIR', help: 'where nginx runs and its configuration is written (default ./switchyard-nginx)' },
    { name: 'external', type: 'boolean', help: 'nginx is run by someone else: write --conf and reload it' },
    { name: 'conf', type: 'string', value: 'FILE', help: 'with --external: the configuration file that nginx runs' },
    { name: 'port-offset', type: 'string', value: 'N', help: 'listen on each listener port + N (default 0), for unprivileged runs' },
    { name: 'admin-port', type: 'string', value: 'P', help: '/healthz, /readyz and /metrics (default 15000; 0: any free port)' },
    { name: 'host', type: 'string', value: 'ADDR', help: 'the address nginx listens on (default 0.0.0.0)' },
    { name: 'nginx', type: 'string', value: 'PATH', help: 'the nginx binary (default /usr/sbin/nginx)' },
    { name: 'modules', type: 'string', value: 'DIR', help: "nginx's dynamic modules (default /usr/lib/nginx/modules)" },
    { name: 'worker-processes', type: 'string', value: 'N', help: "nginx's worker_processes (default auto)" },
    { name: 'id', type: 'string', value: 'ID', help: 'how this data plane is named in its reports (default HOSTNAME-nginx-PID)' },
    HELP,
  ],
  details: 'Environment: SWITCHYARD_URL (the API), SWITCHYARD_TOKEN (a proxy token of these Gateways), LOG_LEVEL.\nNeeds nginx with its njs and stream modules (Debian: nginx libnginx-mod-http-js libnginx-mod-stream libnginx-mod-stream-js).',
  async run({ positionals, options }, ctx: Context) {
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const gateways = (options.gateway as string[] | undefined) ?? [];
    if (gateways.length === 0) throw new UsageError('nginx needs at least one --gateway NS/NAME');
    for (const g of gateways) if (!GATEWAY.test(g)) throw new UsageError(`--gateway "${g}" is not NAMESPACE/NAME`);
    if (!ctx.env.token) throw new UsageError('SWITCHYARD_TOKEN must hold a proxy token');
    const external = options.external === true;
    const conf = options.conf as string | undefined;
    if (external && !conf) throw new UsageError('--external needs --conf FILE: the configuration file the external nginx runs');
    if (!external && conf) throw new UsageError('--conf goes with --external; a supervised nginx runs DIR/nginx.conf under --prefix DIR');
    if (external && options.prefix !== undefined) throw new UsageError('--prefix is for the nginx this command runs; with --external the files go beside --conf');
    const workers = options['worker-processes'] as string | undefined;
    if (workers !== undefined && workers !== 'auto' && !/^[1-9][0-9]{0,2}$/.test(workers)) throw new UsageError('--worker-processes must be auto or a number from 1 to 999');
    const { startNginxAgent } = await import('../../nginx-agent/agent');
    const agent = await startNginxAgent({
      url: ctx.env.url, token: ctx.env.token, gateways: [...new Set(gateways)],
      portOffset: intOption(options['port-offset'], 'port-offset', 0, 65535, 0),
      adminPort: intOption(options['admin-port'], 'admin-port', 0, 65535, 15000),
      host: (options.host as string | undefined) ?? '0.0.0.0',
      id: (options.id as string | undefined) ?? `${hostname()}-nginx-${process.pid}`,
      ...(external ? { externalConf: conf } : { prefix: (options.prefix as string | undefined) ?? 'switchyard-nginx' }),
      ...(options.nginx ? { nginxBin: options.nginx as string } : {}),
      ...(options.modules ? { modulesDir: options.modules as string } : {}),
      ...(workers ? { workerProcesses: workers } : {}),
      logLevel: process.env.LOG_LEVEL,
    });
    await new Promise<void>((resolve) => {
      const stop = () => void agent.stop().then(resolve);
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
    return 0;
  },
};
