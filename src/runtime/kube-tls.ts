// The certificate the Kubernetes paths are served with: KUBE_TLS_CERT_FILE / KUBE_TLS_KEY_FILE when
// the operator has one, else a self-signed one kept in the data folder (kube-tls.crt, kube-tls.key,
// mode 0600), made on first start for the loopback names, this host's name and the bind address.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { selfSignedCertificate, usablePair } from './self-signed';

export interface KubeTls {
  cert: string;
  key: string;
  /** the authority a kubeconfig names: the certificate itself when self-signed, else none (system roots) */
  authority?: string;
}

export function kubeTls(opts: { dataDir: string; certFile?: string; keyFile?: string; host: string }): KubeTls {
  if (opts.certFile && opts.keyFile) return { cert: readFileSync(opts.certFile, 'utf8'), key: readFileSync(opts.keyFile, 'utf8') };
  const dir = resolve(opts.dataDir);
  const certPath = join(dir, 'kube-tls.crt');
  const keyPath = join(dir, 'kube-tls.key');
  if (existsSync(certPath) && existsSync(keyPath)) {
    const cert = readFileSync(certPath, 'utf8');
    const key = readFileSync(keyPath, 'utf8');
    if (usablePair(cert, key)) return { cert, key, authority: cert };
  }
  const names = ['localhost', '127.0.0.1', '::1', hostname()];
  if (opts.host && opts.host !== '0.0.0.0' && opts.host !== '::') names.push(opts.host);
  const made = selfSignedCertificate(names);
  mkdirSync(dir, { recursive: true });
  writeFileSync(keyPath, made.key, { mode: 0o600 });
  chmodSync(keyPath, 0o600);
  writeFileSync(certPath, made.cert, { mode: 0o600 });
  return { ...made, authority: made.cert };
}
