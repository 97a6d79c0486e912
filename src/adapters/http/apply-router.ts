// POST /api/v1/apply. The body is read here, raw, under its own size limit (jsonBody skips this path).
import { Router, type Request, type Response } from 'express';
import type { AppContext } from './context';
import { HttpError, problem, writeProblem } from './problem';
import { readBody } from './body';
import { actorOf } from '../../service/access';
import type { Principal } from '../../service/principal';
import { manifestFormat } from '../../core/apply/manifest';
import { dnsLabelErrors } from '../../core/validate/metadata';
import { ApplyService, applySetNameProblem, type ApplyOptions } from '../../service/apply';
import { ManifestParser } from '../../service/manifest-parser';
import { reconciledChannel, subscribe } from '../delivery/channels';

export const MAX_WAIT_SECONDS = 600;

/** Headers stay well under what proxies and clients take: so many warnings, each so long. */
const MAX_WARNINGS = 50;
const MAX_WARNING_CHARS = 1000;

/**
 * Kubernetes' form of a warning: `299 - "text"` (RFC 7234: code 299, "-" for the one who warns), the text a
 * quoted-string of printable ASCII.
 */
export function warningHeaders(warnings: string[]): string[] {
  const quote = (text: string) => `299 - "${text.slice(0, MAX_WARNING_CHARS).replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, (c) => `\\${c}`)}"`;
  if (warnings.length <= MAX_WARNINGS) return warnings.map(quote);
  const shown = warnings.slice(0, MAX_WARNINGS - 1).map(quote);
  return [...shown, quote(`and ${warnings.length - shown.length} more warnings (run switchyard analyze for all of them)`)];
}

function flag(v: unknown, name: string): boolean {
  if (v === undefined || v === '' || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1' || v === 'All') return true;
  throw new HttpError(400, `${name} must be true or false, got "${String(v)}"`);
}

function text(v: unknown, name: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new HttpError(400, `${name} must be given once`);
  return v;
}

export function parseApplyOptions(q: Request['query'], idempotencyKey: string | undefined): ApplyOptions {
  const dryRun = flag(q.dryRun, 'dryRun');
  const prune = flag(q.prune, 'prune');
  const applySet = text(q.applySet, 'applySet');
  const namespace = text(q.namespace, 'namespace') || undefined;
  const waitRaw = text(q.wait, 'wait');
  if (applySet !== undefined) {
    const problem = applySetNameProblem(applySet);
    if (problem) throw new HttpError(400, problem);
  }
  if (prune && !applySet) throw new HttpError(400, 'prune=true needs applySet=NAME: only the objects of that apply set are pruned');
  if (namespace !== undefined) {
    const errs = dnsLabelErrors(namespace);
    if (errs.length) throw new HttpError(400, `namespace "${namespace}" is not a valid namespace name: ${errs[0]}`);
  }
  let wait = 0;
  if (waitRaw !== undefined && waitRaw !== '') {
    if (!/^\d+(\.\d+)?s?$/.test(waitRaw)) throw new HttpError(400, `wait must be a number of seconds, got "${waitRaw}"`);
    wait = Number(waitRaw.replace(/s$/, ''));
    if (wait > MAX_WAIT_SECONDS) throw new HttpError(400, `wait must be at most ${MAX_WAIT_SECONDS} seconds`);
  }
  if (idempotencyKey !== undefined && (idempotencyKey.length === 0 || idempotencyKey.length > 255))
    throw new HttpError(400, 'Idempotency-Key must be 1 to 255 characters');
  return { dryRun, prune, applySet, wait, namespace, idempotencyKey };
}

export function applyRouter(ctx: AppContext): Router {
  const r = Router();
  const parser = new ManifestParser();
  const service = new ApplyService(ctx.db, ctx.resources, parser, {
    controllerName: ctx.config.controllerName,
    onReconciled: (fn) => subscribe(ctx.bus, reconciledChannel, () => fn()),
  });

  r.all('/api/v1/apply', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/apply';
    try {
      if (req.method !== 'POST') throw new HttpError(405, `${req.method} is not allowed on /api/v1/apply; POST a manifest`, undefined, { Allow: 'POST' });
      const format = manifestFormat(req.header('content-type'));
      if (!format) {
        req.resume();
        throw new HttpError(415, `apply takes application/yaml (one or more documents) or application/json ({"items": [...]} or a List), not ${req.header('content-type')}`);
      }
      const options = parseApplyOptions(req.query, req.header('idempotency-key'));
      const body = await readBody(req, ctx.config.applyBodyLimitBytes);
      const abort = new AbortController();
      res.on('close', () => abort.abort());
      const principal: Principal = res.locals.principal;
      const answer = await service.apply({ body, format, options, principal, actor: actorOf(principal), signal: abort.signal });
      for (const w of warningHeaders(answer.warnings ?? [])) res.append('Warning', w);
      if (answer.outcome === 'committed-not-reconciled') {
        writeProblem(res, { ...problem(504, answer.detail), results: answer.results });
        return;
      }
      if (answer.replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(200).json(answer.body);
    } catch (e) {
      next(e);
    }
  });
  return r;
}
