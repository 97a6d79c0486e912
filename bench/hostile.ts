// Hostile input, timed: what the tests only check for the right answer (test/unit/resolve.test.ts,
// test/unit/apply-core.test.ts, test/int/hostile-input.test.ts), measured here, where a loaded machine
// makes a figure slower instead of a test red. Prints `name: value unit (target ...)`.
import { regexFullMatch } from '../src/core/match/regex';
import { parseYamlManifest } from '../src/core/apply/manifest';
import { report } from './record';

/** The median of `runs` timings of `fn`, in ms. */
function median(fn: () => void, runs = 7): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)];
}

const refused = (fn: () => void) => () => {
  try {
    fn();
  } catch {
    return;
  }
  throw new Error('expected a refusal');
};

// catastrophic backtracking patterns on long inputs: linear under RE2 semantics
report('regex_nested_quantifier_100k', median(() => regexFullMatch('(a+)+$', 'a'.repeat(100_000) + 'b')), 'ms', '<= 1000 ms');
report('regex_header_pattern_50k', median(() => regexFullMatch('(x+x+)+y', 'x'.repeat(50_000))), 'ms', '<= 1000 ms');
report('regex_query_pattern_50k', median(() => regexFullMatch('(.*a){20}', 'a'.repeat(19) + 'b'.repeat(50_000))), 'ms', '<= 1000 ms');

// an alias bomb (10^12 nodes if expanded) and a document nested 2,000 levels deep: refused at once
let bomb = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
for (let i = 1; i < 12; i++) bomb += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]\n`;
report('yaml_alias_bomb_refused', median(refused(() => parseYamlManifest(bomb))), 'ms', '<= 200 ms');
const deep = 'spec:\n' + Array.from({ length: 2000 }, (_, i) => ' '.repeat(i + 1) + 'a:').join('\n') + ' 1\n';
report('yaml_nested_2000_refused', median(refused(() => parseYamlManifest(`kind: HTTPRoute\n${deep}`))), 'ms', '<= 1000 ms');
