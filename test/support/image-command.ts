// The command lines the container image runs, read from the Dockerfile (its last stage's ENTRYPOINT
// and CMD) and docker-compose.yml (a service's command after that ENTRYPOINT), so that tests and
// benchmarks start the very process tree of a container rather than a copy of it that can drift.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './process';

function lastStage(): string[] {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').split('\n');
  const from = lines.map((l, i) => (/^FROM\s/i.test(l) ? i : -1)).filter((i) => i >= 0).pop() ?? 0;
  return lines.slice(from);
}

function instruction(name: 'ENTRYPOINT' | 'CMD'): string[] {
  const line = lastStage().filter((l) => new RegExp(`^${name}\\s`, 'i').test(l)).pop();
  if (!line) return [];
  const argv = JSON.parse(line.replace(/^\S+\s+/, '')) as unknown;
  if (!Array.isArray(argv)) throw new Error(`the Dockerfile's ${name} is not in exec form: ${line}`);
  return argv as string[];
}

/** ENTRYPOINT + CMD of the image, or ENTRYPOINT + the compose service's command */
export function imageArgv(service?: string): string[] {
  const entrypoint = instruction('ENTRYPOINT');
  if (!service) return [...entrypoint, ...instruction('CMD')];
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, { command?: string[] }> };
  const command = compose.services[service]?.command;
  if (!Array.isArray(command)) throw new Error(`docker-compose.yml: service ${service} has no command in exec form`);
  return [...entrypoint, ...command];
}

/**
 * The same argv on this machine: `node` is the node running this process, and the programs in front
 * of it (tini) must be installed at the paths the image has them. Else why not.
 */
export function localArgv(argv: string[]): { argv: string[] } | { missing: string } {
  const node = argv.indexOf('node');
  if (node < 0) throw new Error(`the image's command does not run node: ${argv.join(' ')}`);
  const missing = argv.slice(0, node).find((a) => a.startsWith('/') && !existsSync(a));
  if (missing) return { missing: `${missing} is not installed here (Debian: apt-get install -y ${missing.split('/').pop()})` };
  return { argv: argv.map((a, i) => (i === node ? process.execPath : a)) };
}
