// Worker thread that parses pieces of large YAML apply bodies (see manifest-parser.ts): the main
// event loop stays free while it works, and its heap limit contains a body that needs too much memory.
import { parentPort } from 'node:worker_threads';
import { parseYamlChunk } from '../core/apply/manifest';

parentPort!.on('message', (msg: { id: number; text: string; lineOffset: number }) => {
  try {
    parentPort!.postMessage({ id: msg.id, chunk: parseYamlChunk(msg.text, msg.lineOffset) });
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, error: (e as Error).message });
  }
});
