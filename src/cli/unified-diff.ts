// A line diff in the unified format of `diff -u` and `git diff`: Myers' shortest edit script, then
// hunks with three lines of context. For `switchyard history`, on objects rendered as YAML.

export interface DiffLine { op: ' ' | '-' | '+'; text: string }

/** The shortest edit script from `a` to `b`, as kept, removed and added lines in order. */
export function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  search: for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) break search;
    }
  }
  const out: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const t = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && t[off + k - 1] < t[off + k + 1]) ? k + 1 : k - 1;
    const prevX = t[off + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      out.push({ op: ' ', text: a[x] });
    }
    if (d > 0) {
      if (x === prevX) out.push({ op: '+', text: b[y - 1] });
      else out.push({ op: '-', text: a[x - 1] });
    }
    x = prevX;
    y = prevY;
  }
  return out.reverse();
}

/** `diff -u` of two texts (split on newlines), with `from` and `to` as the file names; '' when they are equal. */
export function unifiedDiff(before: string, after: string, from: string, to: string, context = 3): string {
  const a = lines(before);
  const b = lines(after);
  const ops = diffLines(a, b);
  if (ops.every((o) => o.op === ' ')) return '';
  // where each op starts in a and in b (1-based line numbers)
  const at: { a: number; b: number }[] = [];
  let ai = 1;
  let bi = 1;
  for (const o of ops) {
    at.push({ a: ai, b: bi });
    if (o.op !== '+') ai++;
    if (o.op !== '-') bi++;
  }
  const changed = ops.flatMap((o, i) => (o.op === ' ' ? [] : [i]));
  const hunks: [number, number][] = [];
  for (const i of changed) {
    const start = Math.max(0, i - context);
    const end = Math.min(ops.length, i + context + 1);
    const last = hunks[hunks.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else hunks.push([start, end]);
  }
  const out = [`--- ${from}`, `+++ ${to}`];
  for (const [start, end] of hunks) {
    const body = ops.slice(start, end);
    const aLen = body.filter((o) => o.op !== '+').length;
    const bLen = body.filter((o) => o.op !== '-').length;
    // an empty side is named by the line before it, as diff does
    const aStart = aLen === 0 ? at[start].a - 1 : at[start].a;
    const bStart = bLen === 0 ? at[start].b - 1 : at[start].b;
    out.push(`@@ -${aStart},${aLen} +${bStart},${bLen} @@`);
    for (const o of body) out.push(o.op + o.text);
  }
  return out.join('\n') + '\n';
}

function lines(text: string): string[] {
  if (text === '') return [];
  return text.replace(/\n$/, '').split('\n');
}
