import { readFileSync } from 'node:fs';
import { validateObject } from '../src/core/validate';
const cases = JSON.parse(readFileSync('/work/shared/validation/cases.json', 'utf8'));
let pass = 0, fail = 0;
for (const c of cases) {
  if (!c.channels.includes('experimental')) continue;
  const old = c.before ? validateObject(c.before).object : undefined;
  const r = validateObject(c.object, { old });
  let ok: boolean;
  if (c.valid) ok = r.errors.length === 0;
  else ok = r.errors.some((e) => e.path.includes(c.expectPathContains) && e.message.includes(c.expectMessageContains));
  if (ok) pass++; else { fail++; console.log('FAIL', c.id, c.valid ? '' : `want ${c.expectPathContains} | ${c.expectMessageContains}`); for (const e of r.errors) console.log('    ', e.path, '|', e.message.slice(0, 200)); }
}
console.log(`validation corpus: ${pass} passed, ${fail} failed of ${pass + fail}`);
