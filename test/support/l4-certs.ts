// Certificates for the proxy's TLS listener tests (test/fixtures/tls, made for this project with
// openssl, P-256, valid ten years): the passthrough backend's own (pass.example.com, self-signed),
// a client CA, a client certificate it signed, and a stranger signed by another CA.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(import.meta.dirname, '../fixtures/tls');
const pair = (name: string) => ({ crt: readFileSync(join(dir, `${name}.crt`), 'utf8'), key: readFileSync(join(dir, `${name}.key`), 'utf8') });

export const PASSTHROUGH_BACKEND = pair('passthrough');
export const CLIENT_CA_CERT = readFileSync(join(dir, 'client-ca.crt'), 'utf8');
export const CLIENT = pair('client');
export const STRANGER = pair('stranger');
