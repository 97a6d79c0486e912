// The README's quickstart, run as written against a started service: each `npx switchyard` line of
// its sh blocks, in order, with the output the README shows under it (`#   ...` lines) found in what
// the command printed, and a quoted output in a line's comment found too. Ages (`1s`) are the
// clock's, not the README's, and are left out of the comparison, as is a note in parentheses set
// three spaces or more after a shown line.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandsOf } from '../support/docs';
import { ROOT } from '../support/process';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/server';

interface Step { line: number; args: string[]; quoted?: string; expected: string[] }

/** The `npx switchyard` lines of the README's Quickstart section, each with the output shown under it. */
function quickstart(): Step[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n');
  const from = readme.indexOf('## Quickstart');
  const to = readme.findIndex((l, i) => i > from && l.startsWith('## '));
  const steps: Step[] = [];
  let inSh = false;
  for (let i = from; i < to; i++) {
    const l = readme[i];
    if (/^```/.test(l)) { inSh = !inSh && l.trim() === '```sh'; continue; }
    if (!inSh) continue;
    if (l.startsWith('#   ')) { steps.at(-1)?.expected.push(l.slice(4).replace(/\s{3,}\([^)]*\)$/, '')); continue; }
    const words = commandsOf(l)[0];
    if (words?.[0] !== 'npx' || words[1] !== 'switchyard') continue;
    steps.push({ line: i + 1, args: words.slice(2), quoted: /#.*"([^"]+)"/.exec(l)?.[1], expected: [] });
  }
  return steps;
}

const normal = (line: string) => line.trim().split(/\s+/).filter((w) => !/^\d+s$/.test(w)).join(' ');

function switchyard(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/switchyard.js'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`switchyard ${args.join(' ')} timed out\n${out}`)); }, 90_000);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, out }); });
  });
}

let s: TestServer;
beforeAll(async () => {
  // as `npm start` does on a first start: the class `switchyard` for the controller
  s = await startTestServer({ defaultGatewayClass: 'switchyard' });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

describe('the README quickstart', () => {
  it('runs as written and prints what the README shows', async () => {
    const steps = quickstart();
    expect(steps.map((st) => st.args[0])).toEqual(expect.arrayContaining(['analyze', 'apply', 'get', 'resolve', 'describe']));
    expect(steps.filter((st) => st.expected.length).length, 'lines with output shown').toBeGreaterThanOrEqual(4);
    for (const st of steps) {
      const r = await switchyard(st.args, { SWITCHYARD_URL: s.url, SWITCHYARD_TOKEN: ADMIN_TOKEN });
      const where = `README.md:${st.line}: switchyard ${st.args.join(' ')}\n${r.out}`;
      expect(r.code, where).toBe(0);
      if (st.quoted) expect(r.out, where).toContain(st.quoted);
      const printed = r.out.split('\n').map(normal);
      for (const e of st.expected) expect(printed, `${where}\nexpected the line: ${e}`).toContain(normal(e));
    }
  }, 300_000);
});
