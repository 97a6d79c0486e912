// The pods behind the conformance corpus's Services, on loopback: a Service annotated
// `conformance/endpoints: N` gets N echo pods (test/support/echo-pod.ts), each listening on one
// local port per target port, and N EndpointSlices (one endpoint each, 127.0.0.1, its own ports by
// the Service's port names, TCP and UDP), which is how the table learns where they are. Which pods serve TLS
// with which certificate follows the corpus README ("Test backends"); a request's
// `backendBehaviour` may set it again before it is sent.
import type { K8sObject } from '../../src/core/model/objects';
import { startEchoPod, type EchoPod, type LoggedRequest, type PodTLS } from './echo-pod';

/** README "Test backends": the Services whose pods serve TLS on 8443, and with which Secret. */
const SERVING: Record<string, string> = {
  'gateway-conformance-infra/tls-backend': 'gateway-conformance-infra/tls-checks-certificate',
  'gateway-conformance-infra/tls-backend-2': 'gateway-conformance-infra/tls-checks-certificate',
  'gateway-conformance-infra/grpc-infra-backend-v1': 'gateway-conformance-infra/tls-checks-certificate',
  'gateway-conformance-infra/tcp-backend': 'gateway-conformance-infra/tls-passthrough-checks-certificate',
  'gateway-conformance-app-backend/tls-backend': 'gateway-conformance-app-backend/tls-passthrough-checks-certificate',
  'gateway-conformance-infra/tls-backend-with-client-cert-validation': 'gateway-conformance-infra/tls-checks-certificate',
};
const CLIENT_CA: Record<string, string> = {
  'gateway-conformance-infra/tls-backend-with-client-cert-validation': 'gateway-conformance-infra/tls-checks-ca-certificate',
};
/** README: port 3001 of infra-backend-v1 speaks h2c only. */
const H2C_ONLY_PORTS = [3001];

export interface ServicePods {
  key: string;
  signature: string;
  pods: EchoPod[];
  slices: K8sObject[];
}

const keyOf = (o: { metadata: { namespace?: string; name: string } }) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

export class Fleet {
  private readonly services = new Map<string, ServicePods>();
  /** Secrets and ConfigMaps by "namespace/name", for TLS material */
  readonly material = new Map<string, K8sObject>();

  remember(o: K8sObject): void {
    if (o.kind === 'Secret' || o.kind === 'ConfigMap') this.material.set(keyOf(o), o);
  }

  /** The Secret's certificate and key as PEM. */
  keyPair(ref: string): { cert: string; key: string } | undefined {
    const s = this.material.get(ref) as any;
    const crt = s?.data?.['tls.crt'];
    const key = s?.data?.['tls.key'];
    return crt && key ? { cert: Buffer.from(crt, 'base64').toString('utf8'), key: Buffer.from(key, 'base64').toString('utf8') } : undefined;
  }

  caBundle(ref: string): string | undefined {
    const c = this.material.get(ref) as any;
    return c?.data?.['ca.crt'];
  }

  private tlsFor(key: string): PodTLS | undefined {
    const pair = SERVING[key] ? this.keyPair(SERVING[key]) : undefined;
    if (!pair) return undefined;
    const ca = CLIENT_CA[key] ? this.caBundle(CLIENT_CA[key]) : undefined;
    return { ...pair, ...(ca ? { clientCA: ca } : {}) };
  }

  /** Pods for a Service (restarted when its ports or endpoint count change); returns the EndpointSlices to write. */
  async service(svc: K8sObject): Promise<K8sObject[]> {
    const key = keyOf(svc);
    const n = Number(svc.metadata.annotations?.['conformance/endpoints'] ?? NaN);
    const all: any[] = (svc as any).spec?.ports ?? [];
    const ports = all.filter((p: any) => (p.protocol ?? 'TCP') === 'TCP');
    const udpPorts = all.filter((p: any) => p.protocol === 'UDP');
    const signature = JSON.stringify({ n, all });
    const have = this.services.get(key);
    if (have?.signature === signature) return have.slices;
    if (have) await this.drop(key);
    if (!Number.isInteger(n) || n <= 0 || all.length === 0) return [];
    const targetOf = (p: any) => (typeof p.targetPort === 'number' ? p.targetPort : p.port);
    const attempts = new Map<string, number>();
    const pods = await Promise.all(Array.from({ length: n }, (_, i) => startEchoPod({
      service: svc.metadata.name, namespace: svc.metadata.namespace!, name: `${svc.metadata.name}-${i}`,
      targetPorts: ports.map(targetOf), udpTargetPorts: udpPorts.map(targetOf), h2cOnly: H2C_ONLY_PORTS, tls: this.tlsFor(key), attempts,
    })));
    const slices = pods.map((pod, i) => ({
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: `${svc.metadata.name}-pod-${i}`, namespace: svc.metadata.namespace!, labels: { 'kubernetes.io/service-name': svc.metadata.name } },
      addressType: 'IPv4',
      ports: [...ports.map((p) => ({ name: p.name ?? '', protocol: 'TCP', port: pod.ports.get(targetOf(p))! })),
        ...udpPorts.map((p) => ({ name: p.name ?? '', protocol: 'UDP', port: pod.udpPorts.get(targetOf(p))! }))],
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    }) as unknown as K8sObject);
    this.services.set(key, { key, signature, pods, slices });
    return slices;
  }

  async drop(key: string): Promise<void> {
    const s = this.services.get(key);
    this.services.delete(key);
    await Promise.all((s?.pods ?? []).map((p) => p.close()));
  }

  pods(namespace: string, name: string): EchoPod[] {
    return this.services.get(`${namespace}/${name}`)?.pods ?? [];
  }

  allPods(): EchoPod[] {
    return [...this.services.values()].flatMap((s) => s.pods);
  }

  /** Every request the pods of a Service have logged. */
  logOf(namespace: string, name: string): LoggedRequest[] {
    return this.pods(namespace, name).flatMap((p) => p.log);
  }

  /** Sets what the pods of a Service serve TLS with, for one request (README: backendBehaviour). */
  serveTLS(namespace: string, name: string, tls: PodTLS | undefined): void {
    for (const p of this.pods(namespace, name)) p.tls = tls;
  }

  keys(): string[] {
    return [...this.services.keys()];
  }

  async close(): Promise<void> {
    await Promise.all(this.keys().map((k) => this.drop(k)));
  }
}
