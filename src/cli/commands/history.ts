// switchyard history KIND NAME [-n NS] [-o table|json]
import { UsageError } from '../args';
import { unwrap } from '../client';
import { HELP, NAMESPACE, type Command } from '../command';
import { resolveKind } from '../kinds';
import { table } from '../format';

export const historyCommand: Command = {
  name: 'history',
  usage: 'switchyard history KIND NAME [-n NS] [-o table|json]',
  options: [NAMESPACE, { name: 'output', short: 'o', type: 'string', value: 'table|json', help: 'output format (default table)' }, HELP],
  async run({ positionals, options }, { api, env, io }) {
    const [kindArg, name, extra] = positionals;
    if (!kindArg || !name) throw new UsageError('history needs KIND and NAME');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    const info = resolveKind(kindArg);
    const namespace = (options.namespace as string | undefined) ?? env.namespace;
    const plural = info.plural as never;
    const r = info.scope === 'Cluster'
      ? await api.GET('/api/v1/{plural}/{name}/history', { params: { path: { plural, name } } })
      : await api.GET('/api/v1/namespaces/{namespace}/{plural}/{name}/history', { params: { path: { namespace, plural, name } } });
    const h = unwrap(r);
    if (options.output === 'json') {
      io.out(JSON.stringify(h, null, 2) + '\n');
      return 0;
    }
    if (options.output !== undefined && options.output !== 'table') throw new UsageError('--output must be table or json');
    io.out(table(['VERSION', 'CHANGE', 'ACTOR', 'TIME'], h.items.map((e) => [String(e.version), e.type, e.actor, e.time])) + '\n');
    return 0;
  },
};
