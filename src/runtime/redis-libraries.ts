// bullmq and ioredis are loaded on first use: together they take about half a second to load (more
// on a busy machine), which a process without REDIS_URL, the embedded default, never needs.
// require, not import(): their users construct them synchronously, and both ship CommonJS.
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

export function ioredis(): typeof import('ioredis') {
  return load('ioredis');
}

export function bullmq(): typeof import('bullmq') {
  return load('bullmq');
}
