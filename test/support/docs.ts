// The documentation as the docs tests read it: the pages (README.md and docs/*.md; the journal is a
// record of its days, not a page to follow), their fenced `sh` blocks as commands, their repository
// paths and links, and the CLI's commands as the CLI itself defines them.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '../../src/cli/command';
import { ROOT } from './process';

export interface Page { path: string; text: string }

export function pages(): Page[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
  return ['README.md', ...docs].map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
}

export interface ShellLine { page: string; line: number; text: string }

/** Each command line of the page's ```sh blocks: continuations joined, comments and output lines (`#...`) left out. */
export function shellLines(page: Page): ShellLine[] {
  const out: ShellLine[] = [];
  const lines = page.text.split('\n');
  let inSh = false;
  let pending: ShellLine | undefined;
  lines.forEach((raw, i) => {
    const fence = /^\s*```(\w*)\s*$/.exec(raw);
    if (fence) {
      inSh = !inSh && fence[1] === 'sh';
      return;
    }
    if (!inSh) return;
    const text = raw.trim();
    if (pending) {
      pending.text += ` ${text.replace(/\\$/, '').trim()}`;
      if (!text.endsWith('\\')) { out.push(pending); pending = undefined; }
      return;
    }
    if (!text || text.startsWith('#')) return;
    const line = { page: page.path, line: i + 1, text: text.replace(/\\$/, '').trim() };
    if (text.endsWith('\\')) pending = line;
    else out.push(line);
  });
  return out;
}

/**
 * A command line's words, as a shell splits them (quotes kept together and removed, `$(...)` one
 * word), its trailing comment dropped, and cut into commands at `&&`, `||`, `|` and `;`.
 */
export function commandsOf(line: string): string[][] {
  const commands: string[][] = [[]];
  let word = '';
  let inWord = false;
  let i = 0;
  const end = () => { if (inWord) commands[commands.length - 1].push(word); word = ''; inWord = false; };
  while (i < line.length) {
    const c = line[i];
    if (c === "'" || c === '"') {
      const close = line.indexOf(c, i + 1);
      if (close < 0) throw new Error(`unclosed quote in: ${line}`);
      word += line.slice(i + 1, close);
      inWord = true;
      i = close + 1;
    } else if (c === '$' && line[i + 1] === '(') {
      let depth = 0;
      let j = i + 1;
      for (; j < line.length; j++) {
        if (line[j] === '(') depth++;
        else if (line[j] === ')' && --depth === 0) break;
      }
      word += line.slice(i, j + 1);
      inWord = true;
      i = j + 1;
    } else if (/\s/.test(c)) {
      end();
      i++;
    } else if (c === '#' && !inWord) {
      break;
    } else if ((c === '&' && line[i + 1] === '&') || c === '|' || c === ';') {
      end();
      commands.push([]);
      i += line[i + 1] === c ? 2 : 1;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  end();
  return commands.filter((c) => c.length);
}

/** The CLI's commands, from the modules that define them (src/cli/commands), as `switchyard --help` lists them. */
/** Every command of the CLI, from its command table, with the summary the top help shows. */
export async function cliCommands(): Promise<CliCommand[]> {
  const { COMMANDS } = await import('../../src/cli/command-table');
  return Promise.all(COMMANDS.map(async (e) => ({ ...(await e.load()), summary: e.summary })));
}

export type CliCommand = Command & { summary: string };

/** Where a path a page names lives: as written from the root, or, for the short forms the pages use (`core/...`), under src/. */
export function repoPath(path: string): string | undefined {
  const clean = path.replace(/[#:].*$/, '');
  for (const candidate of [clean, `src/${clean}`]) if (existsSync(join(ROOT, candidate))) return candidate;
  return undefined;
}

/** GitHub's anchor for a heading. */
export function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

export function headingsOf(text: string): string[] {
  let inFence = false;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const h = !inFence && /^#{1,6}\s+(.*)$/.exec(line);
    if (h) out.push(anchorOf(h[1]));
  }
  return out;
}
