// nginx golden cases: test/golden/nginx/<case>.in.yaml (manifests, as the golden cases write them)
// run through the production recompute (runner.ts), then each phase's compiled tables through the
// nginx renderer (src/core/nginx) -> <case>.out.conf: the main configuration and every file it
// includes, with what nginx cannot honour. Where nginx is installed, every phase's configuration
// must also pass `nginx -t`. UPDATE_GOLDEN=1 regenerates; review the diff.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { runCase } from './runner';
import { renderNginx } from '../../src/core/nginx';
import type { SnapshotSecret } from '../../src/core/compile/types';
import { nginxCheck, NGINX } from '../support/nginx';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'nginx');
const update = process.env.UPDATE_GOLDEN === '1';
const cases = readdirSync(dir).filter((f) => f.endsWith('.in.yaml')).sort();
const RENDER_DIR = '/var/lib/switchyard-nginx';
const NJS = '/usr/lib/switchyard/njs/switchyard.js';

function secretsOf(text: string): SnapshotSecret[] {
  return parseAllDocuments(text).map((d) => d.toJS()).filter((o) => o?.kind === 'Secret')
    .map((o) => ({ namespace: o.metadata.namespace ?? 'default', name: o.metadata.name, type: o.type, data: o.data ?? {} }));
}

describe('nginx golden cases', () => {
  it('holds cases', () => expect(cases.length).toBeGreaterThan(0));
  for (const file of cases) {
    const name = file.replace(/\.in\.yaml$/, '');
    it(name, async () => {
      const input = readFileSync(join(dir, file), 'utf8');
      const run = await runCase(input);
      const secrets = secretsOf(input);
      const docs: string[] = [];
      for (const [i, tables] of run.compiled.entries()) {
        const gateways = [...tables].map(([gateway, table]) => ({ gateway, table, secrets }));
        const r = renderNginx({ gateways, portOffset: 0, host: '0.0.0.0', dir: RENDER_DIR, njsScript: NJS, workerProcesses: 'auto', modulesDir: '/usr/lib/nginx/modules' });
        const parts = [`#### phase ${i + 1}: nginx.conf`, r.main];
        for (const f of r.files) parts.push(`#### ${f.name}${f.secret ? ' (mode 0600)' : ''}`, f.secret ? '(certificate and key)\n' : f.content);
        parts.push('#### what nginx cannot honour', ...(r.gaps.length ? r.gaps.map((g) => `# ${g}`) : ['# nothing']), '');
        docs.push(parts.join('\n'));
        if (NGINX.available) {
          // the same files under a real directory, checked by nginx itself
          const tmp = join(tmpdir(), `sy-golden-nginx-${process.pid}-${name}-${i}`);
          mkdirSync(tmp, { recursive: true });
          try {
            const real = renderNginx({ gateways, portOffset: 20000, host: '127.0.0.1', dir: tmp, njsScript: NGINX.njsScript, workerProcesses: '1', modulesDir: NGINX.modulesDir });
            const problem = nginxCheck(tmp, real);
            expect(problem, `phase ${i + 1}`).toBeUndefined();
          } finally {
            rmSync(tmp, { recursive: true, force: true });
          }
        }
      }
      const text = docs.join('\n');
      const outFile = join(dir, `${name}.out.conf`);
      if (update) writeFileSync(outFile, text);
      expect(text).toBe(readFileSync(outFile, 'utf8'));
    });
  }
});
