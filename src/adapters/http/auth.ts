// Bearer tokens. The bootstrap admin comes from ADMIN_TOKEN (or a generated one); comparison is in
// constant time. Roles beyond admin are added by the access-control layer.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { HttpError } from './problem';

export interface Principal {
  name: string;
  role: 'admin' | 'operator' | 'developer' | 'discovery' | 'proxy' | 'viewer';
  namespaces?: string[];
  gateways?: string[];
}

export interface Authenticator {
  authenticate(token: string): Promise<Principal | null>;
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export class BootstrapAuthenticator implements Authenticator {
  private readonly digest: Buffer;
  constructor(adminToken: string, private readonly next?: Authenticator) {
    this.digest = sha256(adminToken);
  }
  async authenticate(token: string): Promise<Principal | null> {
    if (timingSafeEqual(sha256(token), this.digest)) return { name: 'admin', role: 'admin' };
    return this.next ? this.next.authenticate(token) : null;
  }
}

export function bearerToken(req: Request): string {
  const h = req.header('authorization');
  const m = h?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!m) throw new HttpError(401, 'an Authorization: Bearer <token> header is required', undefined, { 'WWW-Authenticate': 'Bearer' });
  return m[1];
}
