// The reconcile worker on a thread of `npm start`'s process (with PostgreSQL and Redis set): it
// recomputes on the machine's other core while the API's thread answers requests, and shares
// nothing with that thread but the process. It reaches the store and the queue as `npm run worker`
// does; the API's thread asks it for its metrics and tells it when to stop.
import { parentPort } from 'node:worker_threads';
import { loadConfig } from './config/env';
import { processLogger } from './runtime/logger';
import { hostWorker } from './worker-host';
import type { FromThread, ToThread } from './runtime/reconcile-thread';

const port = parentPort!;
const send = (m: FromThread) => port.postMessage(m);
const config = loadConfig();
const logger = processLogger({ level: config.logLevel, base: { service: 'switchyard', thread: 'worker' } });
const hosted = await hostWorker(config, logger, { processMetrics: false });
let stopping = false;
port.on('message', (m: ToThread) => {
  if (m.type === 'metrics') {
    hosted.worker.metrics.registry.metrics().then(
      (text) => send({ type: 'metrics', id: m.id, text }),
      () => send({ type: 'metrics', id: m.id, text: '' }),
    );
  } else if (m.type === 'stop' && !stopping) {
    stopping = true;
    hosted.close().then(
      () => logger.flush(() => send({ type: 'stopped' })),
      (err: unknown) => {
        logger.error({ err }, 'worker thread: shutdown failed');
        logger.flush(() => send({ type: 'stopped' }));
      },
    );
  }
});
logger.info('worker thread running');
send({ type: 'ready' });
