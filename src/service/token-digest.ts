// Tokens are kept and compared as their SHA-256, never as themselves.
import { createHash } from 'node:crypto';

export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
