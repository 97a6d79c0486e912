// Liveness, readiness, metrics, the spec and its rendering, and the version.
import { Router } from 'express';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppContext } from './context';

const here = dirname(fileURLToPath(import.meta.url));
const SPEC_PATH = join(here, '../../generated/openapi.json');
const DOCS_PATH = join(here, 'docs.html');

export const GATEWAY_API_VERSION = 'v1.6.1';

export function systemRouter(ctx: AppContext): Router {
  const r = Router();
  const spec = readFileSync(SPEC_PATH, 'utf8');
  const docs = readFileSync(DOCS_PATH, 'utf8');

  r.get('/healthz', (_req, res) => {
    res.locals.route = '/healthz';
    res.json({ status: 'ok' });
  });
  r.get('/readyz', async (_req, res) => {
    res.locals.route = '/readyz';
    const answer = await ctx.readiness();
    res.status(answer.down.length ? 503 : 200).json(answer);
  });
  r.get('/metrics', async (_req, res) => {
    res.locals.route = '/metrics';
    res.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics());
  });
  r.get('/openapi.json', (_req, res) => {
    res.locals.route = '/openapi.json';
    res.type('application/json').send(spec);
  });
  r.get('/docs', (_req, res) => {
    res.locals.route = '/docs';
    res.type('text/html').send(docs);
  });
  r.get('/version', (_req, res) => {
    res.locals.route = '/version';
    res.json({ version: ctx.version, gatewayAPIVersion: GATEWAY_API_VERSION, channel: 'experimental' });
  });
  return r;
}
