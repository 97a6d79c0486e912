// `npm run docs:perf`: the figures table of docs/performance.md, and the short one of README.md, made
// from the benchmarks' recorded output (bench/results/*.txt, written by bench/record.ts with
// BENCH_RECORD set). `--check` changes nothing and exits 1 when either page is not what the records make.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface Figure { name: string; value: string; unit: string; target: string }
export interface BenchRecord {
  /** the file's name without .txt: the bench's name, or the name BENCH_RECORD gave */
  record: string;
  bench: string;
  date: string;
  commit: string;
  machine: string;
  settings: string;
  /** set when the figures were copied from an earlier page rather than written by the run */
  source?: string;
  figures: Figure[];
}

/** What each `npm run bench:*` measures; a bench script without an entry here fails the docs test. */
export const BENCHES: Record<string, string> = {
  'bench:store': 'single-object writes over HTTP with 8 clients: writes/s, p50/p99, and the service\'s CPU per write, which a shared machine disturbs less',
  'bench:validate': 'validating a 16-rule HTTPRoute, in process',
  'bench:apply': 'applying 5,000 objects, re-applying them unchanged, one change with prune',
  'bench:reconcile': 'write to status at 1,000 and 10,000 routes, 1,000 routes written onto 10 Gateways until attached, recompute cost per Gateway (then bench:gateway\'s figures)',
  'bench:delivery': 'write to SSE, conditional and whole snapshot GETs per second, fan-out to 2,000 subscribers, memory (then bench:gateway\'s figures)',
  'bench:faults': 'convergence after a worker\'s SIGKILL mid-recompute, PostgreSQL outages of 5 s and 60 s, Redis restarted empty (on a throwaway PostgreSQL cluster and redis-server of its own)',
  'bench:hostile': 'hostile input: RE2 patterns that backtrack elsewhere, an alias bomb, YAML nested 2,000 levels',
  'bench:startup': 'spawn to /readyz 200 of the image\'s command lines on the built dist/ (embedded after the first start; api and worker apart when DATABASE_URL and REDIS_URL are set), and the CPU each start took',
  'bench:access-log': 'what the access log costs: the same GET with the log off, all, sampled and errors only',
  'bench:proxy': 'the reference proxy beside nginx: route created to first 200, errors while routes change, throughput and added p99, RSS',
  'bench:nginx': 'nginx programmed by `switchyard nginx` beside bench:proxy: route created to first 200 and what a reload costs, errors while routes change, throughput and added p99 against a hand-written nginx configuration, reload time and nginx RSS at 10,000 routes',
  'bench:gateway': 'one Gateway of BENCH_ROUTES routes (5,000; 50,000 for the large target), api and worker apart and in one process: burst, write to SSE for delta watchers, delta bytes, RSS, 2,000 subscribers, 1,000 routes on 10 Gateways',
  'bench:phases': 'one recompute of a large Gateway step by step, in process and in CPU time (load, translate, status diff, delta), and the heap it holds',
  'bench:kube': '`kubectl get httproutes -A` over 10,000 routes (wall, and the service\'s and kubectl\'s CPU), and a change\'s time to a Kubernetes watch and to the events feed',
  'bench:patch': 'the Kubernetes patch engines per request: server-side apply, strategic merge, JSON patch, managedFields updates',
  'bench:console': 'the console in Chromium: first load\'s compressed bytes, a 5,000-route Gateway\'s attachment view drawn, its scrolling frames, a change\'s time to the open view',
  'bench:mesh': 'the mesh (GAMMA): a consumer route changed to the outbound proxy of its namespace (switchyard proxy --mesh) routing by it, p50/p99; then bench:mesh-destination\'s figures',
  'bench:mesh-destination': 'an EndpointSlice change to the Linkerd Destination.Get streams of its Service, with 1,000 streams open over 20 connections (100 Services, 10 streams each): p50/p99',
  'bench:xds': 'xDS (ADS): GRPCRoute created to a @grpc/grpc-js-xds client\'s first call routed by it (1,000 routes on 10 Gateways; api and worker apart and in one process), bytes and time of a one-route change on a 5,000-route Gateway for a delta and a state-of-the-world client, 10,000 delta streams on one API process reached by a change, and its RSS',
};

/** The README's short table: record/figure pairs, in its order. */
export const HEADLINE: { record: string; figure: string; what: string }[] = [
  { record: 'store', figure: 'store_writes_per_second', what: 'object writes over HTTP, 8 clients' },
  { record: 'validate', figure: 'validate_httproute_16_rules', what: 'validation of a 16-rule HTTPRoute' },
  { record: 'apply', figure: 'apply_5000_objects_seconds', what: 'one apply of 5,000 objects' },
  { record: 'reconcile', figure: 'reconcile_1000_routes_attached', what: '1,000 routes written onto 10 Gateways, all attached' },
  { record: 'delivery', figure: 'propagation_1000_routes_p99', what: 'write to SSE, 1,000 routes, p99' },
  { record: 'gateway', figure: 'single_5000_routes_propagation_delta_p99', what: 'write to SSE delta, one Gateway of 5,000 routes, p99 (one process)' },
  { record: 'gateway-50000', figure: 'split_50000_routes_propagation_delta_p99', what: 'the same at 50,000 routes (api and worker apart)' },
  { record: 'gateway-50000', figure: 'single_50000_routes_rss_api', what: 'RSS of one process serving 50,000 routes' },
  { record: 'gateway', figure: 'single_5000_routes_burst_writes_per_second', what: 'a burst of 5,000 route writes in one process' },
  { record: 'gateway', figure: 'single_apply_1000_routes_on_10_gateways_attached', what: '1,000 routes as one apply, attached' },
  { record: 'proxy', figure: 'route_created_to_first_200_p99_1000_routes_10_gateways', what: 'route created to its first 200 through the proxy, p99' },
  { record: 'proxy', figure: 'proxy_to_nginx_throughput_ratio', what: 'the proxy\'s throughput against nginx' },
  { record: 'faults', figure: 'faults_worker_kill_converged_worst', what: 'converged after a worker\'s SIGKILL' },
  { record: 'startup', figure: 'startup_ready_embedded', what: 'start to ready, embedded' },
  { record: 'kube', figure: 'kubectl get httproutes -A (10000 routes) p50', what: '`kubectl get httproutes -A`, 10,000 routes' },
];

const FIGURE = /^(.+?): (-?[\d.,]+(?:-[\d.,]+)?|Infinity|NaN) (\S*) ?\(target (.*)\)$/;

export function parseRecord(record: string, text: string): BenchRecord {
  const head: Record<string, string> = {};
  const figures: Figure[] = [];
  for (const line of text.split('\n')) {
    const h = /^# (\w[\w-]*): (.*)$/.exec(line);
    if (h) head[h[1]] = h[2];
    const f = FIGURE.exec(line);
    if (f) figures.push({ name: f[1], value: f[2], unit: f[3], target: f[4] });
  }
  for (const k of ['bench', 'date', 'commit', 'machine']) if (!head[k]) throw new Error(`bench/results/${record}.txt: no "# ${k}:" line`);
  return { record, bench: head.bench, date: head.date, commit: head.commit, machine: head.machine, settings: head.settings ?? 'defaults', source: head.source, figures };
}

export function readRecords(dir = join(ROOT, 'bench/results')): BenchRecord[] {
  return readdirSync(dir).filter((f) => f.endsWith('.txt')).sort()
    .map((f) => parseRecord(basename(f, '.txt'), readFileSync(join(dir, f), 'utf8')));
}

const cell = (s: string) => s.replace(/\|/g, '\\|');
const day = (date: string) => date.slice(0, 10);
/** the machine up to its first `;`, without parentheses: the cores and how fast `bench:store` ran there */
const shortMachine = (m: string) => m.split(';')[0].replace(/\s*\([^)]*\)/g, '').trim();
const targetOf = (t: string) => (t.startsWith('informational') ? '' : t);

/** The figures table of docs/performance.md: every bench script, each recorded figure, and the records it came from. */
export function fullTable(records: BenchRecord[], benches = BENCHES): string {
  const rows = ['| bench | what it measures | figure | value | target | record |', '|---|---|---|---|---|---|'];
  for (const [bench, what] of Object.entries(benches)) {
    const mine = records.filter((r) => r.bench === bench);
    if (!mine.length) {
      rows.push(`| \`npm run ${bench}\` | ${cell(what)} | (not recorded yet) | | | |`);
      continue;
    }
    let first = true;
    for (const r of mine) {
      for (const f of r.figures) {
        rows.push(`| ${first ? `\`npm run ${bench}\`` : ''} | ${first ? cell(what) : ''} | \`${cell(f.name)}\` | ${f.value} ${cell(f.unit)} | ${cell(targetOf(f.target))} | ${r.record} |`);
        first = false;
      }
    }
  }
  const orphans = records.filter((r) => !(r.bench in benches));
  if (orphans.length) throw new Error(`records of no bench script: ${orphans.map((r) => `${r.record} (${r.bench})`).join(', ')}`);
  const sources = records.map((r) => `- **${r.record}** (\`bench/results/${r.record}.txt\`): ${day(r.date)}, commit ${r.commit}; ${r.machine}; settings: ${r.settings}${r.source ? `; ${r.source}` : ''}.`);
  return `${rows.join('\n')}\n\nThe records (date, commit, machine, settings):\n\n${sources.join('\n')}\n`;
}

/** The README's short table of headline figures, each with the date and machine of its record. */
export function headlineTable(records: BenchRecord[], headline = HEADLINE): string {
  const rows = ['| what | figure | target | measured |', '|---|---|---|---|'];
  for (const h of headline) {
    const r = records.find((x) => x.record === h.record);
    const f = r?.figures.find((x) => x.name === h.figure);
    if (!r || !f) throw new Error(`the README's figure ${h.record}/${h.figure} is in no record`);
    rows.push(`| ${cell(h.what)} | ${f.value} ${cell(f.unit)} | ${cell(targetOf(f.target).replace(/;.*$/, ''))} | ${day(r.date)} at ${cell(r.commit)}, ${cell(shortMachine(r.machine))} |`);
  }
  return `${rows.join('\n')}\n`;
}

const START = '<!-- perf-table: made by `npm run docs:perf` from bench/results/; do not edit by hand -->';
const END = '<!-- perf-table end -->';

/** The page with the text between its markers replaced by `table`. */
export function withTable(page: string, table: string, where: string): string {
  const a = page.indexOf(START);
  const b = page.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${where} has no perf-table markers`);
  return `${page.slice(0, a + START.length)}\n${table}${page.slice(b)}`;
}

export const PAGES = [
  { path: 'docs/performance.md', table: fullTable },
  { path: 'README.md', table: headlineTable },
] as const;

/** Each page as the records make it. */
export function madePages(records = readRecords(), root = ROOT): { path: string; now: string; made: string }[] {
  return PAGES.map((p) => {
    const now = readFileSync(join(root, p.path), 'utf8');
    return { path: p.path, now, made: withTable(now, p.table(records), p.path) };
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const p of madePages()) {
    if (p.now === p.made) continue;
    if (check) {
      console.error(`${p.path} is not what bench/results/ makes: run npm run docs:perf`);
      stale++;
    } else {
      writeFileSync(join(ROOT, p.path), p.made);
      console.log(`${p.path}: table regenerated`);
    }
  }
  process.exitCode = stale ? 1 : 0;
}
