// `npm start`: the API and the reconcile worker in one process; with PostgreSQL and Redis set, the
// worker on a thread of its own (WORKER_THREAD=false: on the API's).
import { loadConfig } from './config/env';
import { startServer } from './server';
import { StartupError } from './runtime/startup-error';

const config = loadConfig();
const apiOnly = process.argv.includes('--role=api');
const worker = apiOnly ? false : config.workerThread && config.databaseUrl && config.redisUrl ? 'thread' : true;
const running = await startServer(config, { worker }).catch((e: unknown) => {
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
