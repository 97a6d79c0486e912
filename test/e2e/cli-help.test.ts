// The command's own help is its reference (docs/ links to it rather than repeating it):
// `switchyard --help` lists every command with one line, and `switchyard COMMAND --help` every option
// that command takes, from the definitions the CLI parses its arguments with.
import { beforeAll, describe, expect, it } from 'vitest';
import { helpText } from '../../src/cli/args';
import type { Command } from '../../src/cli/command';
import { runCli, type Run } from '../support/cli';
import { cliCommands, type CliCommand } from '../support/docs';

const run = (args: string[]) => runCli(() => ({ SWITCHYARD_URL: 'http://127.0.0.1:9' }), args, { timeoutMs: 60_000 });

let commands: CliCommand[];
let top: Run;
beforeAll(async () => {
  commands = await cliCommands();
  top = await run(['--help']);
}, 120_000);

describe('switchyard --help', () => {
  it('lists every command, once, on one line with its summary', () => {
    expect(top.code, top.stderr).toBe(0);
    const lines = top.stdout.split('\n');
    const start = lines.indexOf('Commands:');
    expect(start).toBeGreaterThan(0);
    const listed = lines.slice(start + 1, lines.indexOf('', start)).map((l) => /^ {2}(\S+) {2,}(\S.*)$/.exec(l));
    expect(listed.every(Boolean), top.stdout).toBe(true);
    expect(listed.map((m) => m![1]).sort()).toEqual(commands.map((c) => c.name).sort());
    for (const c of commands) {
      expect(c.summary).not.toMatch(/\n/);
      expect(listed.find((m) => m![1] === c.name)![2]).toBe(c.summary);
    }
    // the summaries start in one column
    expect(new Set(listed.map((m) => m![0].indexOf(m![2]))).size).toBe(1);
  });

  it('says where each command\'s options are', () => {
    expect(top.stdout).toContain('Run "switchyard COMMAND --help" for a command\'s options.');
  });
});

describe('switchyard COMMAND --help', () => {
  it('lists every option a command takes, with its short form and value', () => {
    expect(commands.length).toBeGreaterThanOrEqual(9);
    for (const c of commands) {
      const text = helpText(c.usage, c.summary, c.options, c.details);
      expect(text.startsWith(`Usage: switchyard ${c.name}`), c.name).toBe(true);
      for (const o of c.options) {
        const flag = `${o.short ? `-${o.short}, ` : ''}--${o.name}${o.type === 'boolean' ? '' : ` ${o.value ?? 'VALUE'}`}`;
        expect(text, `${c.name} --${o.name}`).toContain(flag);
        expect(o.help.trim(), `${c.name} --${o.name} has no help`).not.toBe('');
      }
      expect(c.options.some((o) => o.name === 'help'), `${c.name} takes --help`).toBe(true);
    }
  });

  it('is what the command prints', async () => {
    // one command run for real, the rest through the same function (each run starts tsx: seconds)
    const get = commands.find((c) => c.name === 'get')!;
    const r = await run(['get', '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(helpText(get.usage, get.summary, get.options, get.details));
  }, 60_000);
});
