// Output helpers: aligned tables, ages, conditions.
import { stringify } from 'yaml';

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : (c ?? '').padEnd(widths[i]))).join('   ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

export function age(timestamp: string | undefined, now = Date.now()): string {
  if (!timestamp) return '<unknown>';
  const s = Math.max(0, Math.floor((now - Date.parse(timestamp)) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

export function indent(text: string, by = '  '): string {
  return text.replace(/\n$/, '').split('\n').map((l) => by + l).join('\n');
}

export interface Cond {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

/** Conditions of an object's status: its own, per listener (Gateway), per parent (routes). */
export function conditionRows(obj: { metadata?: { namespace?: string }; status?: any }): { scope: string; c: Cond }[] {
  const st = obj.status ?? {};
  const out: { scope: string; c: Cond }[] = [];
  for (const c of st.conditions ?? []) out.push({ scope: '(object)', c });
  for (const l of st.listeners ?? []) for (const c of l.conditions ?? []) out.push({ scope: `listener ${l.name}`, c });
  for (const p of st.parents ?? []) {
    const ref = p.parentRef ?? {};
    const scope = `parent ${ref.namespace ?? obj.metadata?.namespace ?? ''}/${ref.name}${ref.sectionName ? `/${ref.sectionName}` : ''}${ref.port ? `:${ref.port}` : ''}`;
    for (const c of p.conditions ?? []) out.push({ scope, c });
  }
  return out;
}

export function conditionsTable(rows: { scope: string; c: Cond }[], now = Date.now()): string {
  return table(
    ['SCOPE', 'TYPE', 'STATUS', 'REASON', 'AGE', 'MESSAGE'],
    rows.map(({ scope, c }) => [scope, c.type ?? '', c.status ?? '', c.reason ?? '', age(c.lastTransitionTime, now), c.message ?? '']),
  );
}

/** "True" when every condition of that type is True, "False" if any is False, else "Unknown"/"-". */
export function conditionSummary(obj: { status?: any }, type: string): string {
  const all = conditionRows(obj as never).filter((r) => r.c.type === type).map((r) => r.c.status);
  if (all.length === 0) return '-';
  if (all.every((s) => s === 'True')) return 'True';
  if (all.some((s) => s === 'False')) return 'False';
  return 'Unknown';
}
