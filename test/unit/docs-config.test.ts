// docs/configuration.md against src/config/env.ts: every variable the service reads is on the page,
// and the page lists none it does not read, so the page cannot drift from the code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env';
import { ROOT } from '../support/process';

const page = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');

/** The first column of the table under the heading `title`. */
function tableNames(title: string): string[] {
  const start = page.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`docs/configuration.md has no section "${title}"`);
  const next = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, next < 0 ? undefined : next);
  return section.split('\n').filter((l) => l.startsWith('| `')).flatMap((l) => [...l.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]));
}

/** Every variable loadConfig reads, by running it over an environment that notes each read, and by its source. */
function variablesRead(): string[] {
  const read = new Set<string>();
  const env = new Proxy({} as NodeJS.ProcessEnv, {
    get(_, key) {
      if (typeof key === 'string') read.add(key);
      return undefined;
    },
  });
  loadConfig(env);
  const source = readFileSync(join(ROOT, 'src/config/env.ts'), 'utf8');
  for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)|\benv\[['"]([A-Z][A-Z0-9_]*)['"]\]|\b(?:int|flag|fraction)\('([A-Z][A-Z0-9_]*)'/g)) read.add(m[1] ?? m[2] ?? m[3]);
  return [...read].sort();
}

describe('docs/configuration.md', () => {
  it('lists exactly the variables src/config/env.ts reads', () => {
    const documented = tableNames('The service\'s settings');
    const read = variablesRead();
    expect(read.length).toBeGreaterThan(20);
    expect(documented.filter((v) => !read.includes(v)), 'documented but not read').toEqual([]);
    expect(read.filter((v) => !documented.includes(v)), 'read but not documented').toEqual([]);
    expect(new Set(documented).size, 'listed twice').toBe(documented.length);
  });

  it('lists the variables the command reads', () => {
    const client = readFileSync(join(ROOT, 'src/cli/client.ts'), 'utf8');
    const cli = [...new Set([...client.matchAll(/\b(SWITCHYARD_[A-Z_]+)\b/g)].map((m) => m[1]))].sort();
    expect(cli.length).toBeGreaterThan(0);
    const elsewhere = tableNames('Read elsewhere');
    expect(cli.filter((v) => !elsewhere.includes(v))).toEqual([]);
  });

  it('gives the defaults loadConfig gives', () => {
    const c = loadConfig({});
    const row = (name: string) => page.split('\n').find((l) => l.startsWith(`| \`${name}\` |`))?.split('|')[2] ?? '';
    const numeric: [string, number][] = [['PORT', c.port], ['MAX_LIST_LIMIT', c.maxListLimit], ['RATE_LIMIT_PER_SECOND', c.rateLimitPerSecond],
      ['RATE_LIMIT_BURST', c.rateLimitBurst], ['MAX_SSE_PER_TOKEN', c.maxSsePerToken], ['PROXY_REPORT_TTL_SECONDS', c.proxyReportTtlSeconds],
      ['WORKER_PORT', c.workerPort], ['KUBE_WATCH_HISTORY_SECONDS', c.kubeWatchHistorySeconds], ['BODY_LIMIT_BYTES', c.bodyLimitBytes],
      ['APPLY_BODY_LIMIT_BYTES', c.applyBodyLimitBytes], ['ACCESS_LOG_SAMPLE', c.accessLogSample]];
    for (const [name, value] of numeric) expect(row(name), name).toContain(`\`${value}\``);
    const text: [string, string][] = [['HOST', c.host], ['CONTROLLER_NAME', c.controllerName], ['SWITCHYARD_DEFAULT_GATEWAYCLASS', c.defaultGatewayClass ?? 'false'],
      ['SWITCHYARD_DATA_DIR', c.dataDir], ['LOG_LEVEL', c.logLevel], ['ACCESS_LOG', c.accessLog], ['WORKER_THREAD', String(c.workerThread)]];
    for (const [name, value] of text) expect(row(name), name).toContain(`\`${value}\``);
  });
});
