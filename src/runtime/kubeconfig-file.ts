// The bootstrap admin's kubeconfig, written next to the generated admin token (mode 0600, like the
// token): `kubectl --kubeconfig .switchyard/kubeconfig get gateways -A` works after the first start.
// Rewritten on every start, since the port may differ.
import { chmodSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { kubeconfig } from '../core/kube/kubeconfig';

export function writeAdminKubeconfig(dataDir: string, server: string, token: string, authority?: string): string {
  const file = join(resolve(dataDir), 'kubeconfig');
  writeFileSync(file, kubeconfig(server, 'admin', token, authority), { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/** The server URL a local client reaches (over TLS: see tls-on-same-port.ts): a wildcard bind address is reached on the loopback. */
export function localServerUrl(host: string, port: number, prefix: string): string {
  const h = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `https://${h}:${port}${prefix}`;
}
