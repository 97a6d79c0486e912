// The console's only way to the server: the public API, with the signed-in token, on this origin.
// Every failure becomes an ApiError whose message is a sentence a person can act on (the server's
// problem+json detail when there is one).

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string; generation?: number; creationTimestamp?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // any: the console shows every kind's fields without a type per kind
  /* eslint-disable @typescript-eslint/no-explicit-any */
  spec?: any;
  status?: any;
  [extra: string]: any;
  /* eslint-enable @typescript-eslint/no-explicit-any */
}

export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

let token = '';
export function setApiToken(t: string): void {
  token = t;
}

const WORDS: Record<number, string> = {
  401: 'The token is unknown, revoked or expired: sign in again.',
  403: 'This token may not see or do this.',
  404: 'There is no such object (it may have been deleted).',
  409: 'Someone changed this object meanwhile: reload and try again.',
  429: 'Too many requests from this token: wait a moment and try again.',
  503: 'The server cannot reach its database right now: try again shortly.',
};

export async function api<T>(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch {
    throw new ApiError(0, 'The server cannot be reached: check the connection and try again.');
  }
  if (res.ok) return (await res.json()) as T;
  let detail = '';
  try {
    const p = (await res.json()) as { detail?: string; message?: string };
    detail = p.detail ?? p.message ?? '';
  } catch {
    // a body that is not JSON: the status's own words are all there is
  }
  const words = WORDS[res.status] ?? `The server answered ${res.status}.`;
  throw new ApiError(res.status, detail ? `${words} (${detail})` : words);
}

export const sameGroup = 'gateway.networking.k8s.io';

/** kind → the path segment the API serves it under */
export const PLURALS: Record<string, string> = {
  Gateway: 'gateways', HTTPRoute: 'httproutes', GRPCRoute: 'grpcroutes', TLSRoute: 'tlsroutes', TCPRoute: 'tcproutes', UDPRoute: 'udproutes',
  ReferenceGrant: 'referencegrants', Service: 'services', EndpointSlice: 'endpointslices', GatewayClass: 'gatewayclasses', ListenerSet: 'listenersets',
  BackendTLSPolicy: 'backendtlspolicies', Secret: 'secrets', ConfigMap: 'configmaps', Namespace: 'namespaces',
};
export const ROUTE_KINDS = ['HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute'];
const CLUSTER_KINDS = new Set(['GatewayClass', 'Namespace']);

export function objectPath(kind: string, namespace: string | undefined, name: string): string {
  const plural = PLURALS[kind] ?? `${kind.toLowerCase()}s`;
  return CLUSTER_KINDS.has(kind) || !namespace ? `/api/v1/${plural}/${encodeURIComponent(name)}` : `/api/v1/namespaces/${encodeURIComponent(namespace)}/${plural}/${encodeURIComponent(name)}`;
}

// a small first page draws a view soon; larger ones after it cost fewer round trips
const FIRST_PAGE = 250;
const PAGE = 2500;

/** Every object of a kind the token may read, page by page (the server caps a page); `onPage` sees each as it comes. */
export async function listAll(kind: string, onPage?: (items: K8sObject[]) => void): Promise<K8sObject[]> {
  const out: K8sObject[] = [];
  let cont = '';
  do {
    const page = await api<{ items: K8sObject[]; metadata?: { continue?: string } }>(`/api/v1/${PLURALS[kind]}?limit=${cont ? PAGE : FIRST_PAGE}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    out.push(...page.items);
    onPage?.(page.items);
    cont = page.metadata?.continue ?? '';
  } while (cont);
  return out;
}

export interface WhoAmI {
  name: string;
  role: string;
  namespaces?: string[];
  gateways?: string[];
}

/** The token's name and role, as `kubectl auth whoami` asks for them. */
export async function whoAmI(): Promise<WhoAmI> {
  const r = await api<{ status: { userInfo: { username: string; groups?: string[]; extra?: Record<string, string[]> } } }>('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    method: 'POST',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  const u = r.status.userInfo;
  const role = (u.groups ?? []).find((g) => g.startsWith('switchyard:'))?.slice('switchyard:'.length) ?? 'unknown';
  return { name: u.username, role, namespaces: u.extra?.['switchyard.dev/namespaces'], gateways: u.extra?.['switchyard.dev/gateways'] };
}

/** Whether the token may do `verb` on one object, as `kubectl auth can-i` asks. */
export async function canI(verb: string, kind: string, namespace: string, name: string): Promise<boolean> {
  const r = await api<{ status: { allowed: boolean } }>('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    method: 'POST',
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb, group: kind === 'Service' ? '' : sameGroup, resource: PLURALS[kind], namespace, name } } },
  });
  return r.status.allowed;
}
