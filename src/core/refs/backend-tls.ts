// BackendTLSPolicy: which policy applies to a backend, and what it amounts to. A policy targets
// Services of its own namespace, the whole Service or one port by name (sectionName); for a
// backend's Service port the policy naming that port applies, else the one naming the whole Service.
// Policies with the same target and sectionName conflict: the older creationTimestamp, then
// namespace/name, wins (the index keeps them in that order); the others are Accepted=False/Conflicted
// and apply nowhere. A policy's CA certificates come from core ConfigMaps or Secrets under
// "ca.crt" (a reference of another kind is InvalidKind; a missing object, key or PEM certificate
// InvalidCACertificateRef); with none usable it is Accepted=False/NoValidCACertificate and its
// backends are invalid, so that connections to them fail rather than go unverified.
import type { BackendTLSPolicy, ConfigMap, Secret, Service } from '../model/objects';
import type { BackendResolution } from '../model/world';
import type { components } from '../../generated/api';
import { key, refName, type WorldView } from './lookup';
import { secretValue } from './certificates';
import { hasCertificate } from './pem';
import { BackendReason, PolicyReason } from '../status/reasons';
import { memoSlot } from '../translate/context';

type Reason = (typeof PolicyReason)[keyof typeof PolicyReason];
type CompiledBackendTLS = components['schemas']['CompiledBackendTLS'];
type CompiledObjectRef = components['schemas']['CompiledObjectRef'];

export interface PolicyVerdict {
  policy: BackendTLSPolicy;
  accepted: { ok: boolean; reason: Reason; message: string };
  resolvedRefs: { ok: boolean; reason: Reason; message: string };
  /** what a proxy must originate, when the policy is usable (Accepted, whatever its conflicts elsewhere) */
  tls?: CompiledBackendTLS;
}

/** The sectionNames by which a policy targets a Service ('' = the whole Service); empty when it does not. */
function sectionFor(policy: BackendTLSPolicy, service: string): string[] {
  return (policy.spec?.targetRefs ?? [])
    .filter((t) => t && (t.group ?? '') === '' && t.kind === 'Service' && t.name === service)
    .map((t) => t.sectionName ?? '');
}

/** The policy that applies to port `portName` of Service `ns/name`, or undefined. */
export function policyForPort(view: WorldView, ns: string, service: string, portName: string | undefined): BackendTLSPolicy | undefined {
  const list = view.index.policiesByService.get(key(ns, service));
  if (!list?.length) return undefined;
  if (portName) {
    const named = list.find((p) => sectionFor(p, service).includes(portName));
    if (named) return named;
  }
  return list.find((p) => sectionFor(p, service).includes(''));
}

/** The older policy (same target and sectionName) this one loses to, or undefined. */
function winnerOver(view: WorldView, policy: BackendTLSPolicy): BackendTLSPolicy | undefined {
  for (const t of policy.spec?.targetRefs ?? []) {
    if (!t || (t.group ?? '') !== '' || t.kind !== 'Service') continue;
    const list = view.index.policiesByService.get(key(policy.metadata.namespace, t.name)) ?? [];
    const section = t.sectionName ?? '';
    const first = list.find((p) => sectionFor(p, t.name).includes(section));
    if (first && first !== policy) return first;
  }
  return undefined;
}

interface CaRef { ok: boolean; reason?: Reason; message: string; bundle?: string; secret?: CompiledObjectRef }

function caRef(view: WorldView, ns: string, ref: { group?: string; kind?: string; name?: string } | undefined): CaRef {
  const group = ref?.group ?? '';
  const kind = ref?.kind ?? '';
  const name = ref?.name ?? '';
  if (group !== '' || (kind !== 'ConfigMap' && kind !== 'Secret'))
    return { ok: false, reason: PolicyReason.InvalidKind,
      message: `${kind || '(no kind)'} "${refName(ns, name)}"${group ? ` (group ${group})` : ''} is not supported: CA certificates must be in core ConfigMaps or Secrets` };
  const obj: ConfigMap | Secret | undefined = kind === 'ConfigMap' ? view.index.configMaps.get(key(ns, name)) : view.index.secrets.get(key(ns, name));
  if (!obj) return { ok: false, reason: PolicyReason.InvalidCACertificateRef, message: `${kind} "${refName(ns, name)}" does not exist` };
  const bundle = kind === 'ConfigMap' ? (obj as ConfigMap).data?.['ca.crt'] : secretValue(obj as Secret, 'ca.crt');
  if (typeof bundle !== 'string') return { ok: false, reason: PolicyReason.InvalidCACertificateRef, message: `${kind} "${refName(ns, name)}" has no key ca.crt` };
  if (!hasCertificate(bundle))
    return { ok: false, reason: PolicyReason.InvalidCACertificateRef, message: `${kind} "${refName(ns, name)}" has a ca.crt that holds no PEM certificate` };
  // a Secret's data travels beside the table, to the Gateway's proxies only (Snapshot.secrets)
  if (kind === 'Secret') return { ok: true, message: `Secret "${refName(ns, name)}" holds a CA bundle`, secret: { group: '', kind: 'Secret', namespace: ns, name } };
  return { ok: true, message: `${kind} "${refName(ns, name)}" holds a CA bundle`, bundle };
}

/** Every memo keyed by what a verdict reads; the same object while the policies, ConfigMaps and Secrets are the same. */
export function backendTLSMemoKey(view: WorldView): object {
  return view.index.policiesByService.size ? verdictMemo(view) : NO_POLICIES;
}
const NO_POLICIES = Object.freeze({});

// A verdict reads the policy index, ConfigMaps and Secrets: it is kept for as long as those are.
const VERDICTS = memoSlot('refs.backendTLS', () => new WeakMap<object, WeakMap<object, WeakMap<object, WeakMap<BackendTLSPolicy, PolicyVerdict>>>>());

// Secrets are loaded afresh for every recompute (their data is not in the log), so they key the
// memo only when some policy names one: otherwise every recompute would compile every rule again.
const NAMES_SECRET = memoSlot('refs.backendTLSNamesSecret', () => new WeakMap<object, boolean>());
const NO_SECRETS = Object.freeze({});

function namesSecret(view: WorldView): boolean {
  const memo = view.ctx.memo(NAMES_SECRET);
  let yes = memo.get(view.index.policiesByService);
  if (yes === undefined) {
    yes = [...view.index.policiesByService.values()].some((list) => list.some((p) =>
      (p.spec?.validation?.caCertificateRefs ?? []).some((r) => (r?.group ?? '') === '' && r?.kind === 'Secret')));
    memo.set(view.index.policiesByService, yes);
  }
  return yes;
}

function verdictMemo(view: WorldView): WeakMap<BackendTLSPolicy, PolicyVerdict> {
  const idx = view.index;
  const root = view.ctx.memo(VERDICTS);
  let a = root.get(idx.policiesByService);
  if (!a) root.set(idx.policiesByService, (a = new WeakMap()));
  let b = a.get(idx.configMaps);
  if (!b) a.set(idx.configMaps, (b = new WeakMap()));
  const secrets = namesSecret(view) ? idx.secrets : NO_SECRETS;
  let c = b.get(secrets);
  if (!c) b.set(secrets, (c = new WeakMap()));
  return c;
}

export function policyVerdict(view: WorldView, policy: BackendTLSPolicy): PolicyVerdict {
  const memo = verdictMemo(view);
  let v = memo.get(policy);
  if (!v) memo.set(policy, (v = computeVerdict(view, policy)));
  return v;
}

function computeVerdict(view: WorldView, policy: BackendTLSPolicy): PolicyVerdict {
  const ns = policy.metadata.namespace ?? '';
  const validation = policy.spec?.validation;
  const refs = (validation?.caCertificateRefs ?? []).map((r) => caRef(view, ns, r));
  const bad = refs.filter((r) => !r.ok);
  const kindProblem = bad.find((r) => r.reason === PolicyReason.InvalidKind);
  const resolvedRefs = bad.length === 0
    ? { ok: true, reason: PolicyReason.ResolvedRefs, message: refs.length ? 'All CA certificate references are resolved' : 'The policy names no CA certificate references' }
    : { ok: false, reason: (kindProblem ?? bad[0]).reason!, message: bad.map((r) => r.message).join('; ') };
  const wellKnown = validation?.wellKnownCACertificates;
  const winner = winnerOver(view, policy);
  let accepted: PolicyVerdict['accepted'];
  if (winner) accepted = { ok: false, reason: PolicyReason.Conflicted,
    message: `BackendTLSPolicy "${refName(winner.metadata.namespace, winner.metadata.name)}" targets the same Service and section and takes precedence (older, or first by namespace/name)` };
  else if (wellKnown !== undefined && wellKnown !== '' && wellKnown !== 'System')
    accepted = { ok: false, reason: PolicyReason.Invalid, message: `wellKnownCACertificates "${wellKnown}" is not supported: only System is` };
  else if (refs.length > 0 && bad.length === refs.length)
    accepted = { ok: false, reason: PolicyReason.NoValidCACertificate, message: 'None of the CA certificate references is usable' };
  else accepted = { ok: true, reason: PolicyReason.Accepted, message: 'The policy is accepted' };
  const out: PolicyVerdict = { policy, accepted, resolvedRefs };
  if (accepted.ok) {
    const tls: CompiledBackendTLS = {
      policy: { group: 'gateway.networking.k8s.io', kind: 'BackendTLSPolicy', namespace: ns, name: policy.metadata.name },
      sni: validation?.hostname ?? '',
      subjectAltNames: (validation?.subjectAltNames ?? []).map((s) => s?.type === 'URI'
        ? { type: 'URI' as const, value: s.uri ?? '' } : { type: 'Hostname' as const, value: s?.hostname ?? '' }),
    };
    const bundles = refs.filter((r) => r.ok && r.bundle !== undefined).map((r) => r.bundle!.trim());
    if (bundles.length) tls.caCertificates = `${bundles.join('\n')}\n`;
    const secrets = refs.filter((r) => r.ok && r.secret).map((r) => r.secret!);
    if (secrets.length) tls.caCertificateSecrets = secrets;
    if (wellKnown === 'System') tls.wellKnownCACertificates = 'System';
    out.tls = tls;
  }
  return out;
}

/** The route kinds whose backends a BackendTLSPolicy applies to (the API's Extended support). */
export function originatesTLS(kind: string): boolean {
  return kind === 'HTTPRoute' || kind === 'GRPCRoute' || kind === 'TLSRoute';
}

function servicePortName(service: Service | undefined, port: number | undefined): string | undefined {
  return service?.spec?.ports?.find((p) => p?.port === port)?.name;
}

/** The policy (and its verdict) for a resolved backend, or undefined when none applies. */
export function backendPolicy(view: WorldView, res: BackendResolution): PolicyVerdict | undefined {
  if ((res.group ?? '') !== '' || (res.kind ?? 'Service') !== 'Service') return undefined;
  if (!view.index.policiesByService.size) return undefined;
  const service = view.index.services.get(key(res.namespace, res.name));
  if (!service) return undefined;
  const policy = policyForPort(view, res.namespace, res.name, servicePortName(service, res.port ?? undefined));
  return policy ? policyVerdict(view, policy) : undefined;
}

const WITH_TLS = memoSlot('refs.backendWithTLS', () => new WeakMap<PolicyVerdict, WeakMap<BackendResolution, BackendResolution>>());

/**
 * The backend as a proxy must use it: with the TLS its policy asks for, or invalid when its policy
 * has no usable CA. The same resolution and verdict give the same object (compile memoizes on it).
 */
export function withBackendTLS(view: WorldView, res: BackendResolution): BackendResolution {
  const verdict = res.valid ? backendPolicy(view, res) : undefined;
  if (!verdict) return res;
  const memo = view.ctx.memo(WITH_TLS);
  let byRes = memo.get(verdict);
  if (!byRes) memo.set(verdict, (byRes = new WeakMap()));
  let out = byRes.get(res);
  if (out) return out;
  const p = verdict.policy;
  if (verdict.tls) out = { ...res, tls: verdict.tls };
  else if (verdict.accepted.reason === PolicyReason.Conflicted) out = res; // a losing policy applies nowhere: the winner was chosen above
  else out = { ...res, valid: false, reason: BackendReason.InvalidBackendTLS, endpoints: [],
    message: `BackendTLSPolicy "${refName(p.metadata.namespace, p.metadata.name)}" cannot be used: ${verdict.accepted.message}` };
  byRes.set(res, out);
  return out;
}
