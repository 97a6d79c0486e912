// The bootstrap admin comes from ADMIN_TOKEN (or a generated one); comparison is in constant time.
// Every other token is looked up by the next authenticator (the token store).
import { timingSafeEqual } from 'node:crypto';
import type { Authenticator, Principal } from './principal';
import { tokenDigest } from './token-digest';

export class BootstrapAuthenticator implements Authenticator {
  private readonly digest: Buffer;
  constructor(adminToken: string, private readonly next?: Authenticator) {
    this.digest = tokenDigest(adminToken);
  }
  async authenticate(token: string): Promise<Principal | null> {
    if (timingSafeEqual(tokenDigest(token), this.digest)) return { name: 'admin', role: 'admin' };
    return this.next ? this.next.authenticate(token) : null;
  }

  peek(token: string): Principal | undefined {
    if (timingSafeEqual(tokenDigest(token), this.digest)) return { name: 'admin', role: 'admin' };
    return this.next?.peek?.(token);
  }
}
