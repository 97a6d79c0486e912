// switchyard analyze -f FILE|DIR [-f ...] [--server]: what the manifests would get wrong, before they
// are applied (as istioctl analyze does). The checks are the core's (core/analyze), the ones apply
// answers with as Warning headers; --server lays the manifests over the objects stored on the server.
import { UsageError } from '../args';
import type { Api } from '../client';
import { HELP, NAMESPACE, type Command } from '../command';
import { KINDS } from '../../core/model/kinds';
import type { K8sObject } from '../../core/model/objects';
import { analyzeEntries, type Finding } from '../../core/analyze';
import { readManifests, readSources, where, type Origin } from '../manifests';
import { listObjects } from './get';
import { ApiError } from '../client';

const DEFAULT_CONTROLLER = 'switchyard.dev/gateway-controller';
// what the analysis reads (EndpointSlices only decide whether a backend has endpoints, not reported on)
const STORED_KINDS = KINDS.filter((k) => k.kind !== 'EndpointSlice');

async function storedObjects(api: Api): Promise<K8sObject[]> {
  const out: K8sObject[] = [];
  for (const info of STORED_KINDS) {
    try {
      out.push(...((await listObjects(api, info, undefined)) as unknown as K8sObject[]));
    } catch (e) {
      // a kind this token may not list is analyzed as if it held nothing
      if (!(e instanceof ApiError && e.status === 403)) throw e;
    }
  }
  return out;
}

function line(kind: 'Error' | 'Warning', f: Finding, origin: Origin | undefined): string {
  return `${kind} [${f.code}] ${where(origin)}: ${f.message}`;
}

export const analyzeCommand: Command = {
  name: 'analyze',
  usage: 'switchyard analyze -f FILE|DIR [-f ...] [--server] [-n NS] [-o text|json]',
  options: [
    { name: 'filename', short: 'f', type: 'list', value: 'FILE|DIR', help: 'manifest file, directory (read recursively) or - for stdin; repeatable' },
    { name: 'server', type: 'boolean', help: 'also read the objects stored on the server ($SWITCHYARD_URL), so references to them resolve' },
    { name: 'controller-name', type: 'string', value: 'NAME', help: `the controller whose GatewayClasses count as the server's (default ${DEFAULT_CONTROLLER})` },
    { ...NAMESPACE, help: 'namespace for objects that name none (default: $SWITCHYARD_NAMESPACE or "default")' },
    { name: 'output', short: 'o', type: 'string', value: 'text|json', help: 'output format (default text)' },
    HELP,
  ],
  details: [
    'Without --server the manifests are all there is: a reference to anything they do not hold is',
    'reported, except a GatewayClass, which is taken to be the server\'s (it creates one).',
    'Errors are what apply would refuse (invalid objects); warnings what it would accept but not',
    'route as meant. Both are printed on stdout, one a line, with the file and document.',
    'Exit status: 0 when nothing was found, 1 when there are warnings or errors (the last line counts',
    'each) or a file cannot be read as YAML or JSON or holds no objects, 2 on a usage error.',
  ].join('\n'),
  async run({ options, positionals }, { api, env, io }) {
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}" (use -f FILE)`);
    const paths = (options.filename as string[] | undefined) ?? [];
    if (paths.length === 0) throw new UsageError('analyze needs -f FILE|DIR');
    const output = (options.output as string | undefined) ?? 'text';
    if (output !== 'text' && output !== 'json') throw new UsageError('--output must be text or json');

    const { items, origins } = readManifests(await readSources(paths, true, io.stdin));
    const stored = options.server ? await storedObjects(api) : undefined;
    const result = analyzeEntries(items.map((object, document) => ({ document, object })), {
      defaultNamespace: (options.namespace as string | undefined) ?? env.namespace,
      stored,
      controllerName: (options['controller-name'] as string | undefined) ?? DEFAULT_CONTROLLER,
    });
    const originOf = (f: Finding) => origins[f.document];
    if (output === 'json') {
      const place = (f: Finding) => {
        const { document: _d, item: _i, ...rest } = f;
        return { ...rest, ...originOf(f) };
      };
      io.out(JSON.stringify({ errors: result.errors.map(place), warnings: result.warnings.map(place) }, null, 2) + '\n');
    } else {
      const lines = [...result.errors.map((f) => line('Error', f, originOf(f))), ...result.warnings.map((f) => line('Warning', f, originOf(f)))];
      const n = (k: number, what: string) => `${k} ${what}${k === 1 ? '' : 's'}`;
      lines.push(result.errors.length || result.warnings.length
        ? `${n(result.errors.length, 'error')}, ${n(result.warnings.length, 'warning')} in ${n(items.length, 'object')}`
        : `No problems found in ${n(items.length, 'object')}${stored ? ' (with the objects stored on the server)' : ''}`);
      io.out(lines.join('\n') + '\n');
    }
    return result.errors.length || result.warnings.length ? 1 : 0;
  },
};
