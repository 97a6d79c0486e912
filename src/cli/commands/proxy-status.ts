// switchyard proxy-status GATEWAY [-n NS]: the proxies serving a Gateway and whether each serves its
// current snapshot (SYNCED), an older one (STALE) or none yet (NOT_SENT), with when it last reported.
import { UsageError } from '../args';
import { unwrap } from '../client';
import { HELP, NAMESPACE, type Command } from '../command';
import { age, table } from '../format';

export const proxyStatusCommand: Command = {
  name: 'proxy-status',
  usage: 'switchyard proxy-status GATEWAY [-n NS] [-o json]',
  summary: 'Show the proxies of a Gateway: SYNCED, STALE or NOT_SENT, and when each last reported.',
  options: [NAMESPACE, { name: 'output', short: 'o', type: 'string', value: 'json', help: 'json: the API\'s answer as is' }, HELP],
  async run({ positionals, options }, { api, env, io }) {
    const [gateway, extra] = positionals;
    if (!gateway) throw new UsageError('proxy-status needs a GATEWAY name');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    const namespace = (options.namespace as string | undefined) ?? env.namespace;
    const list = unwrap(await api.GET('/api/v1/namespaces/{namespace}/gateways/{name}/proxies', { params: { path: { namespace, name: gateway } } }));
    if (options.output === 'json') {
      io.out(`${JSON.stringify(list, null, 2)}\n`);
      return 0;
    }
    if (list.items.length === 0) {
      io.out(`No proxy of Gateway ${namespace}/${gateway} has reported lately (snapshot version ${list.snapshotVersion ?? 'none'}).\n`);
      return 0;
    }
    io.out(table(['PROXY', 'VERSION', 'STATE', 'LAST SEEN', 'ERROR'], list.items.map((p) => [
      p.id, p.version === null ? '-' : `${p.version}${list.snapshotVersion != null && p.version !== list.snapshotVersion ? ` (current ${list.snapshotVersion})` : ''}`,
      p.state === 'NOT_SENT' ? 'NOT SENT' : p.state, age(p.lastSeen), p.error ?? '',
    ])));
    return 0;
  },
};
