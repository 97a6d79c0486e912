// What a command is: its options, help and run function.
import type { OptionSpec, Parsed } from './args';
import type { Api, Env } from './client';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  stdin(): Promise<string>;
}

export interface Context {
  api: Api;
  env: Env;
  io: Io;
}

export interface Command {
  name: string;
  usage: string;
  options: OptionSpec[];
  details?: string;
  /** resolves to the exit status */
  run(args: Parsed, ctx: Context): Promise<number>;
}

export const HELP: OptionSpec = { name: 'help', short: 'h', type: 'boolean', help: 'show this help' };
export const NAMESPACE: OptionSpec = { name: 'namespace', short: 'n', type: 'string', value: 'NS', help: 'namespace (default: $SWITCHYARD_NAMESPACE or "default")' };
