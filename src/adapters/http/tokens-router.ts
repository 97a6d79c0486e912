// /api/v1/tokens: admins create, list and revoke tokens. The token itself is shown once.
import { Router } from 'express';
import type { AppContext } from './context';
import { HttpError } from './problem';
import type { Principal } from '../../service/principal';
import { requireBody } from './body';
import { canManageTokens } from '../../service/access';

export function tokensRouter(ctx: AppContext): Router {
  const r = Router();
  const admin = (p: Principal) => {
    if (!canManageTokens(p)) throw new HttpError(403, 'only admins manage tokens');
  };
  r.post('/api/v1/tokens', async (req, res, next) => {
    res.locals.route = '/api/v1/tokens';
    try {
      admin(res.locals.principal);
      const body = requireBody(req, res) as Record<string, unknown>;
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'the body must be a JSON object');
      res.status(201).json(await ctx.tokens.create(body));
    } catch (e) {
      next(e);
    }
  });
  r.get('/api/v1/tokens', async (_req, res, next) => {
    res.locals.route = '/api/v1/tokens';
    try {
      admin(res.locals.principal);
      res.json({ items: await ctx.tokens.list() });
    } catch (e) {
      next(e);
    }
  });
  r.delete('/api/v1/tokens/:id', async (req, res, next) => {
    res.locals.route = '/api/v1/tokens/:id';
    try {
      admin(res.locals.principal);
      res.json(await ctx.tokens.revoke(String(req.params.id)));
    } catch (e) {
      next(e);
    }
  });
  return r;
}
