// A real certificate and key for tests (test/fixtures/tls, made for this project with openssl: a
// self-signed P-256 certificate for example.com and *.example.com), and a key of another pair.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(import.meta.dirname, '../fixtures/tls');
export const TEST_CERT = readFileSync(join(dir, 'example.crt'), 'utf8');
export const TEST_KEY = readFileSync(join(dir, 'example.key'), 'utf8');
export const OTHER_KEY = readFileSync(join(dir, 'other.key'), 'utf8');
