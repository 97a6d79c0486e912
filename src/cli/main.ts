// `switchyard`: the command-line client. Errors go to stderr; the exit status is 0 on success,
// 1 when the server refused a request or could not be reached, 2 on a usage error.
import { helpText, parseArgs, UsageError } from './args';
import { ApiError, envOf, makeClient } from './client';
import type { Command, Io } from './command';

/**
 * Each command's module is loaded only when it runs: a call that only talks to the API does not load
 * what the proxy, apply or analyze need (the validator, the proxy's HTTP stack, metrics), which took
 * about half of the bundle's start-up.
 */
interface Entry { name: string; summary: string; load: () => Promise<Command> }

const COMMANDS: Entry[] = [
  { name: 'apply', summary: 'Apply manifests (YAML or JSON files, a directory of them, or - for standard input) in one all-or-nothing request.', load: async () => (await import('./commands/apply')).applyCommand },
  { name: 'analyze', summary: 'Check manifests before applying them: dangling parentRefs, missing Services or ports, references without a ReferenceGrant, hostnames no listener admits, shadowed rules.', load: async () => (await import('./commands/analyze')).analyzeCommand },
  { name: 'get', summary: 'List objects of a kind, or show one.', load: async () => (await import('./commands/get')).getCommand },
  { name: 'describe', summary: 'Show one object: metadata, spec, listeners or parents, its conditions in a table, and why a status is missing.', load: async () => (await import('./commands/describe')).describeCommand },
  { name: 'history', summary: 'Every version of an object, oldest first (version, change, actor, time), and a diff of what each change made.', load: async () => (await import('./commands/history')).historyCommand },
  { name: 'resolve', summary: 'Ask where a request to a Gateway would go, and why (the decision and its explanation).', load: async () => (await import('./commands/resolve')).resolveCommand },
  { name: 'watch', summary: "Follow a Gateway's compiled snapshot: print each new version and what changed. Stop with Ctrl-C.", load: async () => (await import('./commands/watch')).watchCommand },
  { name: 'proxy', summary: 'Run the reference proxy: route real traffic from the snapshots of these Gateways.', load: async () => (await import('./commands/proxy')).proxyCommand },
  { name: 'proxy-status', summary: 'Show the proxies of a Gateway: SYNCED, STALE or NOT_SENT, and when each last reported.', load: async () => (await import('./commands/proxy-status')).proxyStatusCommand },
];

const TOP_HELP = `Usage: switchyard COMMAND [options]

The command-line client of a Switchyard control plane.

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(Math.max(...COMMANDS.map((d) => d.name.length)))}  ${c.summary}`).join('\n')}

Environment:
  SWITCHYARD_URL        the API (default http://localhost:8080)
  SWITCHYARD_TOKEN      bearer token
  SWITCHYARD_NAMESPACE  default namespace (default "default")

Exit status: 0 on success, 1 when the server refused or could not be reached, 2 on a usage error.
Run "switchyard COMMAND --help" for a command's options.
`;

const io: Io = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
  stdin: async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    if (name === 'help' && rest[0]) return main([rest[0], '--help']);
    io.out(TOP_HELP);
    return name ? 0 : 2;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    io.err(`switchyard: unknown command "${name}"\n\n${TOP_HELP}`);
    return 2;
  }
  const cmd = await entry.load();
  try {
    const args = parseArgs(rest, cmd.options);
    if (args.options.help) {
      io.out(helpText(cmd.usage, entry.summary, cmd.options, cmd.details));
      return 0;
    }
    const env = envOf();
    return await cmd.run(args, { api: makeClient(env), env, io });
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`switchyard ${cmd.name}: ${e.message}\nUsage: ${cmd.usage} (see --help)\n`);
      return 2;
    }
    if (e instanceof ApiError) {
      io.err(`switchyard ${cmd.name}: ${e.status}: ${e.detail}\n`);
      return 1;
    }
    const err = e as Error & { cause?: { code?: string; message?: string } };
    if (err?.name === 'TypeError' && /fetch failed/i.test(err.message)) {
      io.err(`switchyard ${cmd.name}: cannot reach ${envOf().url}: ${err.cause?.code ?? err.cause?.message ?? err.message}\n`);
      return 1;
    }
    io.err(`switchyard ${cmd.name}: ${err?.message ?? String(e)}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
// let stdout drain before leaving (a pipe may still hold output)
process.stdout.write('', () => process.exit(code));
