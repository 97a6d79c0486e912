// `npm start`: the API (and, from the reconcile issue on, the worker) in one process.
import { loadConfig } from './config/env';
import { startServer } from './server';
import { StartupError } from './runtime/startup-error';

const config = loadConfig();
const apiOnly = process.argv.includes('--role=api');
const running = await startServer(config, { worker: !apiOnly }).catch((e: unknown) => {
  if (!(e instanceof StartupError)) throw e;
  process.stderr.write(`switchyard: ${e.message}\n`);
  process.exit(1);
});
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    running.ctx.logger.info({ signal }, 'shutting down: finishing requests in flight');
    running.close().then(
      () => process.exit(0),
      (err) => {
        running.ctx.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
