// `switchyard`: the command-line client. Errors go to stderr; the exit status is 0 on success,
// 1 when the server refused a request or could not be reached, 2 on a usage error.
import { COMMANDS } from './command-table';
import { helpText, parseArgs, UsageError } from './args';
import { ApiError, envOf, makeClient } from './client';
import type { Io } from './command';

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
