// Worker thread that parses large YAML apply bodies (see manifest-parser.ts): the main event loop
// stays free while it works, and its heap limit contains a body that needs too much memory.
import { parentPort } from 'node:worker_threads';
import { parseYamlManifest } from '../core/apply/manifest';
import { ApplyRejection } from '../core/apply/types';

parentPort!.on('message', (msg: { id: number; text: string }) => {
  try {
    parentPort!.postMessage({ id: msg.id, ok: true, entries: parseYamlManifest(msg.text) });
  } catch (e) {
    if (e instanceof ApplyRejection) parentPort!.postMessage({ id: msg.id, ok: false, status: e.status, message: e.message, issues: e.issues });
    else parentPort!.postMessage({ id: msg.id, ok: false, status: 400, message: `the YAML could not be read: ${(e as Error).message}`, issues: [] });
  }
});
