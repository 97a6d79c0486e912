// Who is calling: what the HTTP adapter hands the service once a bearer token is authenticated.
// What each role may do is decided in access.ts.
import type { components } from '../generated/api';

export type Role = components['schemas']['Role'];

export const ROLES: readonly Role[] = ['admin', 'operator', 'developer', 'discovery', 'proxy', 'viewer'];

export interface Principal {
  name: string;
  role: Role;
  namespaces?: string[];
  gateways?: string[];
  /** a proxy token's mesh scope: the client namespace whose mesh table it reads */
  mesh?: string;
}

/** Turns a bearer token into its principal, or null when the token is unknown, revoked or expired. */
export interface Authenticator {
  authenticate(token: string): Promise<Principal | null>;
}
