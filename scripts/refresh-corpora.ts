// `npm run corpora:refresh`: copies the conformance and validation corpora and the contract from
// ../shared (or $SHARED_DIR) into test/corpora, where the tests read them, so that a clone with
// nothing beside it tests green. Run it when ../shared changes, and commit the result.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const shared = resolve(process.env.SHARED_DIR ?? join(root, '..', 'shared'));
const into = join(root, 'test', 'corpora');

if (!existsSync(shared)) {
  console.error(`corpora:refresh: ${shared} does not exist (set SHARED_DIR); nothing changed`);
  process.exit(1);
}
for (const dir of ['conformance', 'validation']) {
  const from = join(shared, dir);
  if (!existsSync(from)) {
    console.error(`corpora:refresh: ${from} is missing; nothing changed`);
    process.exit(1);
  }
  rmSync(join(into, dir), { recursive: true, force: true });
  cpSync(from, join(into, dir), { recursive: true });
  console.log(`${dir}: copied from ${from}`);
}
cpSync(join(shared, 'contract.md'), join(into, 'contract.md'));
console.log(`contract.md: copied from ${join(shared, 'contract.md')}`);
