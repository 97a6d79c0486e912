// The readable diff of a dry run: what apply would change in an object, as a unified diff of the
// part apply owns (labels, annotations and the content: spec, data, ...), keys sorted so that only
// real changes show. Secret data never appears: a Secret is compared by its data digest.
import { stringify } from 'yaml';
import type { K8sObject } from '../model/objects';
import { contentOf } from '../objects/write';

/** What apply replaces, in a stable order. */
export function managedView(obj: K8sObject | undefined): Record<string, unknown> | undefined {
  if (!obj) return undefined;
  const meta: Record<string, unknown> = {};
  const labels = obj.metadata?.labels;
  const annotations = obj.metadata?.annotations;
  if (labels && Object.keys(labels).length) meta.labels = labels;
  if (annotations && Object.keys(annotations).length) meta.annotations = annotations;
  const view: Record<string, unknown> = {};
  if (Object.keys(meta).length) view.metadata = meta;
  for (const [k, v] of Object.entries(contentOf(obj))) Object.defineProperty(view, k, { value: v, enumerable: true, writable: true, configurable: true });
  return view;
}

function lines(view: Record<string, unknown> | undefined): string[] {
  if (!view || Object.keys(view).length === 0) return [];
  const text = stringify(view, { sortMapEntries: true, lineWidth: 0, aliasDuplicateObjects: false });
  return text.replace(/\n$/, '').split('\n');
}

type Op = { op: ' ' | '-' | '+'; line: string };

/** Longest-common-subsequence line diff; past a size bound the changed middle is shown replaced whole. */
function diffLines(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head: Op[] = a.slice(0, start).map((line) => ({ op: ' ', line }));
  const tail: Op[] = a.slice(endA).map((line) => ({ op: ' ', line }));
  const ma = a.slice(start, endA);
  const mb = b.slice(start, endB);
  const middle: Op[] = [];
  if (ma.length * mb.length > 4_000_000) {
    for (const line of ma) middle.push({ op: '-', line });
    for (const line of mb) middle.push({ op: '+', line });
  } else {
    const n = ma.length;
    const m = mb.length;
    const w = m + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        lcs[i * w + j] = ma[i] === mb[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (ma[i] === mb[j]) {
        middle.push({ op: ' ', line: ma[i] });
        i++;
        j++;
      } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) middle.push({ op: '-', line: ma[i++] });
      else middle.push({ op: '+', line: mb[j++] });
    }
    while (i < n) middle.push({ op: '-', line: ma[i++] });
    while (j < m) middle.push({ op: '+', line: mb[j++] });
  }
  return [...head, ...middle, ...tail];
}

/** Unified diff hunks with `context` lines around each change. */
function hunks(ops: Op[], context: number): string[] {
  const out: string[] = [];
  const changed = ops.map((o) => o.op !== ' ');
  let i = 0;
  let lineA = 1;
  let lineB = 1;
  const posA: number[] = [];
  const posB: number[] = [];
  for (const o of ops) {
    posA.push(lineA);
    posB.push(lineB);
    if (o.op !== '+') lineA++;
    if (o.op !== '-') lineB++;
  }
  while (i < ops.length) {
    if (!changed[i]) {
      i++;
      continue;
    }
    const from = Math.max(0, i - context);
    let to = i;
    // extend while another change is within 2*context lines
    for (let k = i; k < ops.length; k++) {
      if (changed[k]) to = k;
      else if (k - to > 2 * context) break;
    }
    const end = Math.min(ops.length, to + context + 1);
    const slice = ops.slice(from, end);
    const countA = slice.filter((o) => o.op !== '+').length;
    const countB = slice.filter((o) => o.op !== '-').length;
    const startA = countA ? posA[from] : posA[from] - 1;
    const startB = countB ? posB[from] : posB[from] - 1;
    out.push(`@@ -${startA},${countA} +${startB},${countB} @@`);
    for (const o of slice) out.push(`${o.op}${o.line}`);
    i = end;
  }
  return out;
}

/**
 * The diff apply would make, from `before` (the stored object, or none) to `after` (the object as it
 * would be stored, or none for a prune). Empty when nothing changes.
 */
export function objectDiff(label: string, before: K8sObject | undefined, after: K8sObject | undefined, context = 3): string {
  const a = lines(managedView(before));
  const b = lines(managedView(after));
  const ops = diffLines(a, b);
  if (!ops.some((o) => o.op !== ' ')) return '';
  const from = before ? `${label} (resourceVersion ${before.metadata?.resourceVersion ?? '?'})` : '/dev/null';
  const to = after ? `${label} (applied)` : '/dev/null';
  return [`--- ${from}`, `+++ ${to}`, ...hunks(ops, context)].join('\n') + '\n';
}
