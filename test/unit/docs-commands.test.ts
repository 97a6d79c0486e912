// Every command the README and docs/ tell a reader to type, checked against the real thing, so that a
// renamed script, command, option or variable fails here instead of in a reader's terminal: npm
// scripts against package.json, `switchyard` commands and options against the CLI's own definitions,
// variables set on a command line against the code that reads them, URLs against the API's spec, and
// every repository path and link of the pages against the files.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../src/cli/command';
import { resolveKind } from '../../src/cli/kinds';
import { anchorOf, cliCommands, type CliCommand, commandsOf, headingsOf, pages, repoPath, shellLines, type Page } from '../support/docs';
import { ROOT } from '../support/process';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const spec = JSON.parse(readFileSync(join(ROOT, 'src/generated/openapi.json'), 'utf8')) as { paths: Record<string, unknown> };
const buildScript = readFileSync(join(ROOT, 'scripts/build.ts'), 'utf8');

/** Programs the pages may name that are not this project's; their own options are theirs to keep. */
const OTHER_PROGRAMS = new Set(['curl', 'kubectl', 'docker', 'pg_dump', 'pg_restore', 'psql', 'cat', 'apt-get']);
/** Variables of the shell and of other programs, set on the pages' command lines. */
const OTHER_VARIABLES = new Set(['KUBECONFIG']);

/** The text of every file a variable may be read in: the code, the scripts, the tests, the image and compose. */
const codeText = (() => {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const rel = `${dir}/${name}`;
      if (name === 'generated' || name === 'node_modules' || name.startsWith('docs-')) continue;
      if (statSync(join(ROOT, rel)).isDirectory()) walk(rel);
      else if (/\.(ts|js|mjs)$/.test(name)) texts.push(readFileSync(join(ROOT, rel), 'utf8'));
    }
  };
  for (const dir of ['src', 'bench', 'scripts', 'workers', 'test', 'bin']) walk(dir);
  for (const f of ['Dockerfile', 'docker-compose.yml', 'package.json', '.ci/run']) texts.push(readFileSync(join(ROOT, f), 'utf8'));
  return texts.join('\n');
})();

const specPaths = Object.keys(spec.paths).map((p) => new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`));

let commands: CliCommand[];
beforeAll(async () => {
  commands = await cliCommands();
});

/** What is wrong with one command, or nothing. */
function problemsOf(words: string[]): string[] {
  const problems: string[] = [];
  let rest = [...words];
  // VAR=value before a command, or `export VAR=value`
  if (rest[0] === 'export') rest = rest.slice(1);
  while (rest.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0])) {
    const name = rest[0].slice(0, rest[0].indexOf('='));
    if (!OTHER_VARIABLES.has(name) && !new RegExp(`\\b${name}\\b`).test(codeText)) problems.push(`the variable ${name} is read nowhere in the code`);
    rest = rest.slice(1);
  }
  for (const w of rest) {
    const path = /^(examples|src|test|bench|scripts|docs|deploy|openapi|prisma|workers|bin)\/[^\s$]*$/.exec(w)?.[0];
    if (path && !repoPath(path)) problems.push(`${path} does not exist`);
  }
  if (!rest.length) return problems;
  const [program, ...args] = rest;
  if (program === 'npm') return [...problems, ...npmProblems(args)];
  if (program === 'npx' && args[0] === 'switchyard') return [...problems, ...cliProblems(args.slice(1))];
  if (program === 'switchyard') return [...problems, ...cliProblems(args)];
  if (program === 'npx' && args[0] === 'vitest') return problems; // the files it names are checked above
  if (program === 'node') {
    if (args[0] === 'bin/switchyard.js' || args[0] === 'dist/cli.js') return [...problems, ...cliProblems(args.slice(1))];
    const dist = /^dist\/([\w-]+)\.js$/.exec(args[0] ?? '')?.[1];
    if (dist && new RegExp(`\\b${dist}: '`).test(buildScript)) return problems;
    return [...problems, `node ${args[0]}: not a file npm run build makes`];
  }
  if (program === 'curl') {
    for (const a of args) {
      const url = /^(?:https?:\/\/)?localhost:\d+(\/[^?\s]*)?/.exec(a);
      if (url && !specPaths.some((p) => p.test(url[1] ?? '/'))) problems.push(`${url[1]}: no such path in openapi/`);
    }
    return problems;
  }
  if (OTHER_PROGRAMS.has(program)) return problems;
  return [...problems, `${program}: a program the docs test does not know`];
}

function npmProblems(args: string[]): string[] {
  const [verb, ...rest] = args;
  if (verb === 'ci' || verb === 'install') return [];
  if (verb === 'start' || verb === 'test') return verb in pkg.scripts ? [] : [`npm ${verb}: no such script`];
  if (verb === 'run') {
    const script = rest.find((w) => !w.startsWith('-'));
    if (!script || !(script in pkg.scripts)) return [`npm run ${script}: no such script in package.json`];
    const dash = rest.indexOf('--');
    // `npm run proxy -- ...` passes its arguments to `switchyard proxy`
    if (dash >= 0 && pkg.scripts[script].includes('bin/switchyard.js')) {
      const cmd = /bin\/switchyard\.js (\S+)/.exec(pkg.scripts[script])?.[1];
      return cliProblems([...(cmd ? [cmd] : []), ...rest.slice(dash + 1)]);
    }
    return [];
  }
  return [`npm ${verb}: not a verb the docs use`];
}

function cliProblems(args: string[]): string[] {
  const [name, ...rest] = args;
  if (name === '--help' || name === '-h') return [];
  const cmd = commands.find((c) => c.name === name);
  if (!cmd) return [`switchyard ${name}: no such command`];
  const problems: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i];
    if (!w.startsWith('-') || w === '-') {
      positionals.push(w);
      continue;
    }
    const long = w.startsWith('--');
    const key = long ? w.slice(2).split('=')[0] : w.slice(1, 2);
    const spec = cmd.options.find((o) => (long ? o.name === key : o.short === key));
    if (!spec) {
      problems.push(`switchyard ${name}: no option ${long ? '--' : '-'}${key}`);
      continue;
    }
    const inline = long ? w.includes('=') : w.length > 2;
    if (spec.type !== 'boolean' && !inline) i++;
  }
  if (['get', 'describe', 'history'].includes(name) && positionals[0]) {
    try { resolveKind(positionals[0]); } catch (e) { problems.push(`switchyard ${name}: ${(e as Error).message}`); }
  }
  return problems;
}

describe('the commands of the README and docs/', () => {
  const all = pages().flatMap((p) => shellLines(p));

  it('are there to check (the README\'s start and test lines among them)', () => {
    expect(all.length).toBeGreaterThan(20);
    const readme = all.filter((l) => l.page === 'README.md').map((l) => l.text);
    expect(readme[0]).toMatch(/^npm ci && npm start\b/);
    expect(readme[1]).toMatch(/^npm ci && npm test\b/);
  });

  it('name scripts, commands, options, variables, files and paths that exist', () => {
    const found = all.flatMap((l) => commandsOf(l.text).flatMap((words) => problemsOf(words).map((p) => `${l.page}:${l.line}: ${p}\n    ${l.text}`)));
    expect(found).toEqual([]);
  });

  it('find a renamed option, script, command, variable or file (the checks can fail)', () => {
    expect(problemsOf(['npx', 'switchyard', 'apply', '-f', 'examples/quickstart', '--wait-for', '30s'])).toEqual(['switchyard apply: no option --wait-for']);
    expect(problemsOf(['npm', 'run', 'bench:nothing'])).toEqual(['npm run bench:nothing: no such script in package.json']);
    expect(problemsOf(['switchyard', 'snapshot', 'watch'])).toEqual(['switchyard snapshot: no such command']);
    expect(problemsOf(['NO_SUCH_SETTING=1', 'npm', 'start'])).toEqual(['the variable NO_SUCH_SETTING is read nowhere in the code']);
    expect(problemsOf(['npx', 'switchyard', 'apply', '-f', 'examples/nowhere.yaml'])).toEqual(['examples/nowhere.yaml does not exist']);
    expect(problemsOf(['curl', 'localhost:8080/api/v2/gateways'])).toEqual(['/api/v2/gateways: no such path in openapi/']);
    expect(problemsOf(['npx', 'switchyard', 'get', 'widgets'])).toHaveLength(1);
  });
});

describe('the paths and links of the README and docs/', () => {
  const checked = (page: Page) => page.text.replace(/```[\s\S]*?```/g, '');

  it('name files that exist', () => {
    const missing: string[] = [];
    for (const page of pages()) {
      for (const m of checked(page).matchAll(/`([^`\s]+)`/g)) {
        const p = m[1];
        const named = /^(?:src|test|bench|scripts|docs|examples|deploy|openapi|prisma|workers|bin|core|adapters|service|runtime|config|cli|proxy)\/[\w./-]*$/.test(p)
          || /^[\w.-]+\.(?:ts|js|json|yaml|yml|md|sql)$/.test(p) && !p.includes('*');
        if (!named) continue;
        if (/^[\w.-]+$/.test(p) && !/\//.test(p)) {
          // a bare file name: somewhere in the tree named so (Dockerfile, package.json, scripts/build.ts's `build.ts`)
          continue;
        }
        if (!repoPath(p)) missing.push(`${page.path}: ${p}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('link to pages and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      const dir = page.path.includes('/') ? page.path.slice(0, page.path.lastIndexOf('/')) : '.';
      for (const m of checked(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1];
        if (/^[a-z]+:/.test(target)) continue;
        const [file, anchor] = target.split('#');
        const path = file ? join(dir, file) : page.path;
        let text: string;
        try { text = readFileSync(join(ROOT, path), 'utf8'); } catch { broken.push(`${page.path}: ${target} (no such file)`); continue; }
        if (anchor && !headingsOf(text).includes(anchor)) broken.push(`${page.path}: ${target} (no heading "${anchor}")`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('README.md links to no journal, and stays a front door', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).not.toMatch(/docs\/journal/);
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(anchorOf('V8 gets one background thread (`--v8-pool-size=1`)')).toBe('v8-gets-one-background-thread---v8-pool-size1');
  });
});
