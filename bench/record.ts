// The benchmarks' figures as they print them, `name: value unit (target ...)`, and, with BENCH_RECORD
// set, the same lines kept in bench/results/<name>.txt under a header saying when, on which commit and
// on which machine they were measured. `npm run docs:perf` makes docs/performance.md's table (and the
// README's) from those files, so a figure in the docs is one a benchmark printed, not one typed in.
//
//   BENCH_RECORD=1 npm run bench:store                      -> bench/results/store.txt
//   BENCH_RECORD=gateway-50000 BENCH_ROUTES=50000 npm run bench:gateway -> bench/results/gateway-50000.txt
//
// A record replaces the one before of the same name. A benchmark that runs another (bench:reconcile
// runs bench:gateway's figures after its own) passes BENCH_RECORD_FILE on, and the other's lines go
// to the same record.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** bench/results, or BENCH_RESULTS_DIR (the docs test records into a folder of its own) */
export const resultsDir = () => process.env.BENCH_RESULTS_DIR || join(ROOT, 'bench/results');

/** The record's name: BENCH_RECORD's value, or for `1` the npm script's name without `bench:` (else the script's file name). */
function recordName(): string | undefined {
  const asked = process.env.BENCH_RECORD;
  if (!asked || asked === '0') return undefined;
  if (asked !== '1') return asked.replace(/[^A-Za-z0-9._-]/g, '-');
  const script = process.env.npm_lifecycle_event;
  if (script?.startsWith('bench:')) return script.slice('bench:'.length);
  return basename(process.argv[1] ?? 'bench', '.ts');
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** What a reader needs to weigh a figure: the cores, their model, memory, kernel, node, and how busy the machine was. */
export function machineLine(): string {
  const c = cpus();
  const model = c[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  return `${c.length} cores (${model}), ${Math.round(totalmem() / 2 ** 30)} GiB, ${platform()} ${release()} ${arch()}, node ${process.version}; load average ${loadavg()[0].toFixed(1)} at the start`;
}

let file: string | undefined | null = null;

function recordFile(): string | undefined {
  if (file !== null) return file;
  file = process.env.BENCH_RECORD_FILE || undefined;
  if (file) return file;
  const name = recordName();
  if (!name) return (file = undefined);
  mkdirSync(resultsDir(), { recursive: true });
  file = join(resultsDir(), `${name}.txt`);
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) ? ' (with uncommitted changes)' : '';
  const settings = Object.entries(process.env).filter(([k]) => k.startsWith('BENCH_') && !['BENCH_RECORD', 'BENCH_RECORD_FILE', 'BENCH_RESULTS_DIR'].includes(k)).map(([k, v]) => `${k}=${v}`).sort();
  writeFileSync(file, [
    `# bench: ${process.env.npm_lifecycle_event ?? basename(process.argv[1] ?? '')}`,
    `# date: ${new Date().toISOString()}`,
    `# commit: ${git(['rev-parse', '--short', 'HEAD']) || 'unknown'}${dirty}`,
    `# machine: ${machineLine()}`,
    `# settings: ${settings.join(' ') || 'defaults'}`,
    '',
  ].join('\n'));
  process.env.BENCH_RECORD_FILE = file; // the benchmarks this one starts write to the same record
  return file;
}

/** Prints one line of figures, and keeps it in the record when recording. */
export function figureLine(line: string): void {
  console.log(line);
  const f = recordFile();
  if (f) appendFileSync(f, `${line}\n`);
}

export function report(name: string, value: number, unit: string, target: string): void {
  figureLine(`${name}: ${Number.isInteger(value) ? value : value.toFixed(value < 10 ? 2 : 1)} ${unit} (target ${target})`);
}
