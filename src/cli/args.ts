// A small argv parser: each command declares its options; anything else is a usage error.
export type OptionType = 'boolean' | 'string' | 'list';

export interface OptionSpec {
  name: string;
  short?: string;
  type: OptionType;
  value?: string; // placeholder in help
  help: string;
}

export interface Parsed {
  positionals: string[];
  options: Record<string, string | boolean | string[] | undefined>;
}

export class UsageError extends Error {}

export function parseArgs(argv: string[], specs: OptionSpec[]): Parsed {
  const byLong = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short!, s]));
  const options: Parsed['options'] = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let spec: OptionSpec | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
      spec = byLong.get(name);
      if (!spec) throw new UsageError(`unknown option --${name}`);
    } else if (arg.startsWith('-') && arg.length > 1 && arg !== '-') {
      const name = arg.slice(1, 2);
      spec = byShort.get(name);
      if (!spec) throw new UsageError(`unknown option ${arg}`);
      if (arg.length > 2) inline = arg.slice(2);
    } else {
      positionals.push(arg);
      continue;
    }
    if (spec.type === 'boolean') {
      if (inline !== undefined && inline !== 'true' && inline !== 'false') throw new UsageError(`--${spec.name} takes no value`);
      options[spec.name] = inline !== 'false';
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${spec.name} needs a value${spec.value ? ` (${spec.value})` : ''}`);
    if (spec.type === 'list') options[spec.name] = [...((options[spec.name] as string[] | undefined) ?? []), value];
    else options[spec.name] = value;
  }
  return { positionals, options };
}

export function helpText(usage: string, summary: string, specs: OptionSpec[], extra = ''): string {
  const rows = specs.map((s) => {
    const flag = `${s.short ? `-${s.short}, ` : '    '}--${s.name}${s.type === 'boolean' ? '' : ` ${s.value ?? 'VALUE'}`}`;
    return `  ${flag.padEnd(30)} ${s.help}`;
  });
  return `Usage: ${usage}\n\n${summary}\n${rows.length ? `\nOptions:\n${rows.join('\n')}\n` : ''}${extra ? `\n${extra}\n` : ''}`;
}

/** "30s", "2m", "1m30s", "45" (seconds) -> seconds */
export function parseDuration(text: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const m = text.match(/^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/);
  if (!m || text === '') throw new UsageError(`"${text}" is not a duration (for example 30s, 2m, 1m30s)`);
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

/** A Gateway named on the command line: NS/NAME, each a DNS label (the name may hold dots). */
export const GATEWAY_ARG = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/;

/** An integer option from `min` to `max`, `fallback` when absent; anything else is a usage error naming it. */
export function intOption(value: unknown, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}
