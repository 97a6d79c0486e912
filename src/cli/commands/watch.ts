// switchyard watch GATEWAY [-n NS]: follows the Gateway's snapshot stream (SSE) and prints each new
// version and what changed. Reconnects with Last-Event-ID when the stream drops.
import { UsageError } from '../args';
import { toApiError } from '../client';
import { HELP, NAMESPACE, type Command, type Context } from '../command';
import { changes, summarize } from '../snapshot-changes';
import { sseEvents } from '../../core/snapshot/sse-events';
import type { components } from '../../generated/api';

type Snapshot = components['schemas']['Snapshot'];

function clock(): string {
  return new Date().toISOString().slice(11, 19);
}

export const watchCommand: Command = {
  name: 'watch',
  usage: 'switchyard watch GATEWAY [-n NS] [--count N]',
  options: [
    NAMESPACE,
    { name: 'count', type: 'string', value: 'N', help: 'stop after N snapshots (the first one included)' },
    { name: 'output', short: 'o', type: 'string', value: 'text|json', help: 'text (default) or json: one snapshot per line' },
    HELP,
  ],
  async run({ positionals, options }, ctx: Context) {
    const [gateway, extra] = positionals;
    if (!gateway) throw new UsageError('watch needs a GATEWAY name');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    const namespace = (options.namespace as string | undefined) ?? ctx.env.namespace;
    const limit = options.count !== undefined ? Number(options.count) : Infinity;
    if (!(limit > 0) || (limit !== Infinity && !Number.isInteger(limit))) throw new UsageError('--count must be a positive integer');
    const json = options.output === 'json';
    let seen = 0;
    let last: Snapshot | undefined;
    let failures = 0;
    for (;;) {
      const headers: Record<string, string> = last ? { 'Last-Event-ID': String(last.version) } : {};
      let res;
      try {
        res = await ctx.api.GET('/api/v1/namespaces/{namespace}/gateways/{name}/snapshot/watch', {
          params: { path: { namespace, name: gateway } }, headers, parseAs: 'stream',
        });
      } catch (e) {
        if (!last || ++failures > 5) throw e;
        ctx.io.err(`switchyard: the stream broke (${(e as Error).message}); reconnecting\n`);
        await new Promise((r) => setTimeout(r, 200 * 2 ** failures));
        continue;
      }
      if (!res.response.ok || !res.data) throw toApiError(res.response, res.error);
      if (!last) ctx.io.err(`watching Gateway ${namespace}/${gateway} (Ctrl-C to stop)\n`);
      for await (const ev of sseEvents(res.data as ReadableStream<Uint8Array>)) {
        if (ev.event !== 'snapshot') continue;
        failures = 0;
        const snap = JSON.parse(ev.data) as Snapshot;
        if (json) ctx.io.out(JSON.stringify(snap) + '\n');
        else if (!last) ctx.io.out(`${clock()}  version ${snap.version}: ${summarize(snap)}\n`);
        else ctx.io.out(`${clock()}  version ${snap.version} (was ${last.version}): ${summarize(snap)}\n${changes(last, snap).map((c) => `    ${c}`).join('\n')}\n`);
        last = snap;
        if (++seen >= limit) return 0;
      }
      if (++failures > 5) throw new Error('the snapshot stream keeps closing');
      ctx.io.err('switchyard: the stream closed; reconnecting\n');
      await new Promise((r) => setTimeout(r, 200 * 2 ** failures));
    }
  },
};
