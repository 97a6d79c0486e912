// The bearer token of a request. Who it belongs to is the service's question (service/principal.ts).
import type { Request } from 'express';
import { HttpError } from './problem';

export function bearerToken(req: Request): string {
  const h = req.header('authorization');
  const m = h?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!m) throw new HttpError(401, 'an Authorization: Bearer <token> header is required', undefined, { 'WWW-Authenticate': 'Bearer' });
  return m[1];
}
