// Who calls the Linkerd APIs and for which client namespace. The token is a proxy token (call
// metadata `authorization: Bearer <token>`), as on the xDS streams, with a mesh scope (`mesh`: the
// client namespace it serves). The client's namespace comes from the request: Destination's context_token
// or OutboundPolicies' source_workload, each `{"ns": "...", ...}` (Linkerd's form) or "<ns>:<name>".
// Order: no token or an unknown one is UNAUTHENTICATED; a token that serves no mesh client, or not
// this namespace's, PERMISSION_DENIED; a request that cannot be read INVALID_ARGUMENT.
import * as grpc from '@grpc/grpc-js';
import type { Authenticator, Principal } from '../../service/principal';
import { canServeMesh } from '../../service/access';

export class CallError extends Error {
  constructor(readonly code: grpc.status, message: string) {
    super(message);
  }
}

const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The namespace a context token or source workload names; undefined when it names none. */
export function clientNamespaceOf(text: string, field: string): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  let ns: unknown;
  if (t.startsWith('{')) {
    try {
      ns = (JSON.parse(t) as { ns?: unknown }).ns;
    } catch {
      throw new CallError(grpc.status.INVALID_ARGUMENT, `${field} is not JSON: want {"ns": "<client namespace>"}`);
    }
    if (ns === undefined) return undefined;
  } else ns = t.includes(':') ? t.slice(0, t.indexOf(':')) : t;
  if (typeof ns !== 'string' || !NAMESPACE.test(ns)) throw new CallError(grpc.status.INVALID_ARGUMENT, `${field}: ${JSON.stringify(ns)} is not a namespace name`);
  return ns;
}

export interface MeshCaller {
  principal: Principal;
  /** the client's namespace; undefined only for an admin whose request names none */
  namespace: string | undefined;
}

export async function meshCaller(auth: Authenticator, md: grpc.Metadata, clientText: string, field: string): Promise<MeshCaller> {
  const header = md.get('authorization')[0];
  const token = typeof header === 'string' && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '').trim() : '';
  if (!token) throw new CallError(grpc.status.UNAUTHENTICATED, 'no proxy token: send call metadata "authorization: Bearer <token>"');
  let p: Principal | null;
  try {
    p = await auth.authenticate(token);
  } catch {
    throw new CallError(grpc.status.UNAVAILABLE, 'the token could not be checked; try again');
  }
  if (!p) throw new CallError(grpc.status.UNAUTHENTICATED, 'unknown, revoked or expired token');
  if (p.role !== 'admin' && !(p.role === 'proxy' && p.mesh)) throw new CallError(grpc.status.PERMISSION_DENIED, `token "${p.name}" serves no mesh clients (a proxy token with a mesh scope does)`);
  // a proxy token's scope is one namespace: a request that names none is its clients'
  const ns = clientNamespaceOf(clientText, field) ?? (p.role === 'proxy' ? p.mesh : undefined);
  if (ns !== undefined && !canServeMesh(p, ns)) throw new CallError(grpc.status.PERMISSION_DENIED, `token "${p.name}" does not serve mesh clients in namespace ${ns}`);
  return { principal: p, namespace: ns };
}

/** Ends a call with a status (a streaming call's client sees it as the stream's end). */
export function endCall(call: grpc.ServerWritableStream<unknown, unknown>, code: grpc.status, details: string): void {
  call.emit('error', { code, details, metadata: new grpc.Metadata() } as grpc.ServiceError);
}
