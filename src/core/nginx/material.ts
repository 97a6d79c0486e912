// TLS material as files: a listener's certificate and key (one file holds both, mode 0600), a CA
// bundle, a backend client certificate. Files are named by the digest of their content, so a
// certificate shared by listeners is written once and an unchanged one keeps its file.
import type { CompiledBackendTLS, CompiledObjectRef, SnapshotSecret } from '../compile/types';
import { base64Text, digest } from './names';
import type { RenderedFile } from './types';

export class Material {
  readonly files = new Map<string, RenderedFile>();

  constructor(private readonly dir: string, private readonly secrets: readonly SnapshotSecret[]) {}

  private secretItem(ref: { namespace: string; name: string }, item: string): string | undefined {
    const s = this.secrets.find((x) => x.namespace === ref.namespace && x.name === ref.name);
    return base64Text(s?.data?.[item]);
  }

  private put(kind: 'certs' | 'ca', content: string, secret: boolean): string {
    const name = `${kind}/${digest(content, 16)}.pem`;
    this.files.set(name, { name, content, ...(secret ? { secret: true } : {}) });
    return `${this.dir}/${name}`;
  }

  /** The file holding a kubernetes.io/tls Secret's certificate chain and key, or undefined when it has none. */
  keyPair(ref: CompiledObjectRef): string | undefined {
    const crt = this.secretItem(ref, 'tls.crt');
    const key = this.secretItem(ref, 'tls.key');
    if (!crt || !key) return undefined;
    return this.put('certs', `${crt.trimEnd()}\n${key.trimEnd()}\n`, true);
  }

  ca(pem: string): string {
    return this.put('ca', `${pem.trimEnd()}\n`, false);
  }

  /** The CAs a backend's certificate must chain to; undefined when the policy has none usable here. */
  backendCA(t: CompiledBackendTLS): string | undefined {
    if (t.wellKnownCACertificates === 'System') return '/etc/ssl/certs/ca-certificates.crt';
    const parts = [t.caCertificates ?? '', ...(t.caCertificateSecrets ?? []).map((r) => this.secretItem(r, 'ca.crt') ?? '')].map((p) => p.trim()).filter(Boolean);
    return parts.length ? this.ca(parts.join('\n')) : undefined;
  }
}
