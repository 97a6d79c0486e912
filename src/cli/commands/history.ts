// switchyard history KIND NAME [-n NS] [--version N | --diff A..B] [-o table|json]
// Every version of an object and what each change made of it, as `git log -p` shows a file: the table
// of versions, then for each version a unified diff of the object against the version before it.
import { UsageError } from '../args';
import { unwrap, type Api } from '../client';
import { HELP, NAMESPACE, type Command } from '../command';
import { resolveKind } from '../kinds';
import { table, toYaml } from '../format';
import type { KindInfo } from '../../core/model/kinds';
import { unifiedDiff } from '../unified-diff';

interface Entry { version: number; type: string; actor: string; time: string }

type Obj = { apiVersion?: string; kind?: string; metadata?: Record<string, unknown>; status?: unknown } & Record<string, unknown>;

/** Versions fetched at once: enough to hide round trips, few enough not to crowd the API. */
const PARALLEL = 8;

export const historyCommand: Command = {
  name: 'history',
  usage: 'switchyard history KIND NAME [-n NS] [--version N | --diff A..B] [-o table|json]',
  options: [
    NAMESPACE,
    { name: 'version', type: 'string', value: 'N', help: 'only the change that made version N (its diff against version N-1)' },
    { name: 'diff', type: 'string', value: 'A..B', help: 'only the difference between versions A and B' },
    { name: 'output', short: 'o', type: 'string', value: 'table|json', help: 'output format (default table); json lists the versions only' },
    HELP,
  ],
  details: `What a diff shows: labels, annotations and everything else the object holds (spec, or data,
endpoints, ports...), as YAML with sorted keys; not the status, nor metadata the server keeps
(resourceVersion, generation, timestamps). A version that was created diffs against nothing, a
deletion against nothing after it.`,
  async run({ positionals, options }, { api, env, io }) {
    const [kindArg, name, extra] = positionals;
    if (!kindArg || !name) throw new UsageError('history needs KIND and NAME');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    if (options.output !== undefined && options.output !== 'table' && options.output !== 'json') throw new UsageError('--output must be table or json');
    if (options.version !== undefined && options.diff !== undefined) throw new UsageError('--version and --diff do not go together');
    const info = resolveKind(kindArg);
    const namespace = (options.namespace as string | undefined) ?? env.namespace;
    const entries = await historyOf(api, info, namespace, name);
    if (options.output === 'json') {
      io.out(JSON.stringify({ kind: 'History', items: entries }, null, 2) + '\n');
      return 0;
    }
    const label = `${info.kind.toLowerCase()}/${name}`;
    const byVersion = new Map(entries.map((e) => [e.version, e]));
    const known = (v: number, what: string) => {
      if (!byVersion.has(v)) throw new UsageError(`${what}: ${label} has no version ${v} (it has ${entries[0]?.version}..${entries[entries.length - 1]?.version})`);
      return v;
    };
    if (options.diff !== undefined) {
      const m = /^(\d+)\.\.(\d+)$/.exec(options.diff as string);
      if (!m) throw new UsageError(`--diff takes two versions as A..B, got "${options.diff}"`);
      const [a, b] = [known(Number(m[1]), '--diff'), known(Number(m[2]), '--diff')];
      const objs = await objectsAt(api, info, namespace, name, [a, b].filter((v) => byVersion.get(v)!.type !== 'Deleted'));
      io.out(unifiedDiff(rendered(objs.get(a), byVersion.get(a)!), rendered(objs.get(b), byVersion.get(b)!), `${label}@${a}`, `${label}@${b}`) || `versions ${a} and ${b} of ${label} do not differ\n`);
      return 0;
    }
    const shown = options.version !== undefined ? [known(versionOption(options.version as string), '--version')] : entries.map((e) => e.version);
    const wanted = new Set(shown.flatMap((v) => [v, previousOf(entries, v)].filter((x): x is number => x !== undefined && byVersion.get(x)!.type !== 'Deleted')));
    const objs = await objectsAt(api, info, namespace, name, [...wanted]);
    if (options.version === undefined) io.out(table(['VERSION', 'CHANGE', 'ACTOR', 'TIME'], entries.map((e) => [String(e.version), e.type, e.actor, e.time])) + '\n');
    for (const v of shown) {
      const e = byVersion.get(v)!;
      const prev = previousOf(entries, v);
      const before = prev === undefined || e.type === 'Created' ? '' : rendered(objs.get(prev), byVersion.get(prev)!);
      const after = rendered(objs.get(v), e);
      const diff = unifiedDiff(before, after, before === '' ? '/dev/null' : `${label}@${prev}`, e.type === 'Deleted' ? '/dev/null' : `${label}@${v}`);
      io.out(`\nversion ${v}: ${e.type} by ${e.actor} at ${e.time}\n${diff || '(no change to what the object holds)\n'}`);
    }
    return 0;
  },
};

function versionOption(text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`--version takes a version number, got "${text}"`);
  return Number(text);
}

/** The version before `v` in the object's history (versions need not be consecutive numbers). */
function previousOf(entries: Entry[], v: number): number | undefined {
  const i = entries.findIndex((e) => e.version === v);
  return i > 0 ? entries[i - 1].version : undefined;
}

async function historyOf(api: Api, info: KindInfo, namespace: string, name: string): Promise<Entry[]> {
  const plural = info.plural as never;
  const r = info.scope === 'Cluster'
    ? await api.GET('/api/v1/{plural}/{name}/history', { params: { path: { plural, name } } })
    : await api.GET('/api/v1/namespaces/{namespace}/{plural}/{name}/history', { params: { path: { namespace, plural, name } } });
  return unwrap(r).items;
}

async function objectsAt(api: Api, info: KindInfo, namespace: string, name: string, versions: number[]): Promise<Map<number, Obj>> {
  const plural = info.plural as never;
  const out = new Map<number, Obj>();
  const queue = [...versions];
  const one = async (version: number) => {
    const r = info.scope === 'Cluster'
      ? await api.GET('/api/v1/{plural}/{name}/history/{version}', { params: { path: { plural, name, version } } })
      : await api.GET('/api/v1/namespaces/{namespace}/{plural}/{name}/history/{version}', { params: { path: { namespace, plural, name, version } } });
    out.set(version, unwrap(r) as Obj);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
    for (let v = queue.shift(); v !== undefined; v = queue.shift()) await one(v);
  }));
  return out;
}

/** What a diff compares: the labels, annotations and content of the object, not its status or server-kept metadata. */
function rendered(obj: Obj | undefined, entry: Entry): string {
  if (entry.type === 'Deleted' || !obj) return '';
  const { apiVersion: _a, kind: _k, metadata, status: _s, ...content } = obj;
  const labels = metadata?.labels as Record<string, string> | undefined;
  const annotations = metadata?.annotations as Record<string, string> | undefined;
  const meta = { ...(labels && Object.keys(labels).length ? { labels } : {}), ...(annotations && Object.keys(annotations).length ? { annotations } : {}) };
  return toYaml(sorted({ ...(Object.keys(meta).length ? { metadata: meta } : {}), ...content }));
}

/** Map keys in order at every depth, so that a diff shows changes, not reorderings; lists keep their order. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted((value as Record<string, unknown>)[k])]));
}
