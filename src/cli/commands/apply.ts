// switchyard apply -f FILE|DIR [-f ...] [--dry-run] [--prune --apply-set NAME] [--wait 30s]
import { randomUUID } from 'node:crypto';
import { parseDuration, UsageError } from '../args';
import { ApiError, toApiError } from '../client';
import { HELP, NAMESPACE, type Command } from '../command';
import { conditionsTable, type Cond } from '../format';
import type { components } from '../../generated/api';

type AnyObject = components['schemas']['AnyObject'];
import { readManifests, readSources, where, type Origin } from '../manifests';
import { printWarnings } from '../warnings';

function objectName(r: { kind?: string; namespace?: string; name?: string }): string {
  return `${r.kind ?? '?'} ${r.namespace ? `${r.namespace}/` : ''}${r.name ?? '(no name)'}`;
}

export const applyCommand: Command = {
  name: 'apply',
  usage: 'switchyard apply -f FILE|DIR [-f ...] [--dry-run] [--prune --apply-set NAME] [--wait 30s]',
  options: [
    { name: 'filename', short: 'f', type: 'list', value: 'FILE|DIR', help: 'manifest file, directory (its .yaml/.yml/.json files) or - for stdin; repeatable' },
    { name: 'recursive', short: 'R', type: 'boolean', help: 'read directories recursively' },
    { name: 'dry-run', type: 'boolean', help: 'validate and show what would change (a diff per object); write nothing' },
    { name: 'apply-set', type: 'string', value: 'NAME', help: 'label every object switchyard.dev/apply-set=NAME' },
    { name: 'prune', type: 'boolean', help: 'delete the objects of the apply set that the manifests no longer hold (needs --apply-set)' },
    { name: 'wait', type: 'string', value: 'DURATION', help: 'wait until the reconciler has caught up (e.g. 30s) and show conditions' },
    { ...NAMESPACE, help: 'namespace for objects that name none (default: $SWITCHYARD_NAMESPACE or "default")' },
    { name: 'output', short: 'o', type: 'string', value: 'text|json', help: 'output format (default text)' },
    HELP,
  ],
  details: 'The server\'s warnings about the applied objects (the checks of "switchyard analyze") go to stderr as "Warning: ..." lines.\n'
    + 'Exit status: 0 when applied (warnings or not), 1 when a file cannot be read as YAML or JSON or holds no objects, when the server refused the apply or could not be reached, 2 on a usage error.',
  async run({ options, positionals }, { api, env, io }) {
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}" (use -f FILE)`);
    const paths = (options.filename as string[] | undefined) ?? [];
    if (paths.length === 0) throw new UsageError('apply needs -f FILE|DIR');
    const applySet = options['apply-set'] as string | undefined;
    if (options.prune && !applySet) throw new UsageError('--prune needs --apply-set NAME: only the objects of that set are pruned');
    const wait = options.wait !== undefined ? parseDuration(options.wait as string) : undefined;
    const output = (options.output as string | undefined) ?? 'text';
    if (output !== 'text' && output !== 'json') throw new UsageError('--output must be text or json');

    const sources = await readSources(paths, Boolean(options.recursive), io.stdin);
    const { items, origins } = readManifests(sources);
    if (items.length === 0) throw new UsageError('the manifests hold no objects');

    const key = randomUUID();
    const send = () => api.POST('/api/v1/apply', {
      params: {
        query: {
          ...(options['dry-run'] ? { dryRun: true } : {}),
          ...(options.prune ? { prune: true } : {}),
          ...(applySet ? { applySet } : {}),
          ...(wait !== undefined ? { wait } : {}),
          namespace: (options.namespace as string | undefined) ?? env.namespace,
        },
        header: { 'Idempotency-Key': key },
      },
      // sent as read: the server validates every object and names each problem by document and path
      body: { items: items as AnyObject[] },
    });
    let r;
    try {
      r = await send();
    } catch {
      // the connection failed before an answer: the same key makes a retry safe
      r = await send();
    }
    const { data, error, response } = r;
    printWarnings(response.headers, io);
    if (response.status === 504) {
      const body = error as unknown as { detail?: string; results?: Result[] };
      io.err(`switchyard: ${body?.detail ?? 'timed out waiting for the reconciler'}\n`);
      if (output === 'json') io.out(JSON.stringify(body, null, 2) + '\n');
      else if (body?.results) io.out(render(body.results, origins, true, false));
      return 1;
    }
    if (!response.ok || !data) {
      const e = toApiError(response, error);
      const issues = (e.problem?.errors ?? []) as { document?: number; item?: number; kind?: string; namespace?: string; name?: string; path?: string; message?: string }[];
      if (issues.length) {
        const lines = issues.map((i) => {
          const o = i.document !== undefined ? origins[i.document] : undefined;
          const at = [where(o), i.kind ? objectName(i) : ''].filter(Boolean).join(': ');
          return `  ${at}${at ? ': ' : ''}${i.path ? `${i.path}: ` : ''}${i.message ?? ''}`;
        });
        throw new ApiError(e.status, `${headline(e.status)}; nothing was written:\n${lines.join('\n')}`, e.problem);
      }
      throw e;
    }
    if (output === 'json') {
      io.out(JSON.stringify(data, null, 2) + '\n');
      return 0;
    }
    io.out(render(data.results as Result[], origins, wait !== undefined, Boolean(data.dryRun)));
    return 0;
  },
};

function headline(status: number): string {
  if (status === 403) return 'the apply is forbidden';
  if (status === 422) return 'the apply is invalid';
  if (status === 409) return 'a concurrent write changed these objects';
  return `the apply failed (${status})`;
}

interface Result {
  kind: string;
  namespace?: string;
  name: string;
  action: string;
  resourceVersion: string;
  document?: number;
  diff?: string;
  conditions?: (Cond & { listener?: string; parent?: string })[];
}

function render(results: Result[], origins: Origin[], withConditions: boolean, dryRun: boolean): string {
  const lines: string[] = [];
  const counts: Record<string, number> = {};
  for (const r of results) {
    counts[r.action] = (counts[r.action] ?? 0) + 1;
    lines.push(`${objectName(r)} ${r.action}${dryRun ? ' (dry run)' : ''}`);
    if (dryRun && r.diff) lines.push(r.diff.replace(/\n$/, '').split('\n').map((l) => `    ${l}`).join('\n'));
    if (withConditions && r.conditions?.length) {
      const rows = r.conditions.map((c) => ({ scope: c.listener ? `listener ${c.listener}` : c.parent ? `parent ${c.parent}` : r.kind, c }));
      lines.push(conditionsTable(rows).split('\n').map((l) => `    ${l}`).join('\n'));
    }
  }
  void origins;
  const summary = ['created', 'configured', 'unchanged', 'pruned'].map((a) => `${counts[a] ?? 0} ${a}`).join(', ');
  lines.push(`${results.length} object${results.length === 1 ? '' : 's'}${dryRun ? ' (dry run, nothing written)' : ''}: ${summary}`);
  return lines.join('\n') + '\n';
}
