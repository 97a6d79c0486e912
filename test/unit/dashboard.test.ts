// The Grafana dashboard in deploy/grafana queries only metrics and labels the service registers:
// renaming one without the dashboard fails here, instead of leaving an empty panel.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import { Metrics } from '../../src/adapters/http/metrics';
import { WorkerMetrics } from '../../src/adapters/metrics/worker';

const DASHBOARD = join(import.meta.dirname, '../../deploy/grafana/switchyard.json');

interface Panel { title?: string; targets?: { expr: string }[]; panels?: Panel[] }

function expressions(dashboard: { panels: Panel[] }): { panel: string; expr: string }[] {
  const out: { panel: string; expr: string }[] = [];
  const walk = (ps: Panel[]) => {
    for (const p of ps) {
      for (const t of p.targets ?? []) out.push({ panel: p.title ?? '?', expr: t.expr });
      walk(p.panels ?? []);
    }
  };
  walk(dashboard.panels);
  return out;
}

/** Every series name the registries expose (a histogram's _bucket, _sum and _count), with its labels. */
function exposed(registries: Registry[]): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>();
  for (const r of registries) {
    for (const m of r.getMetricsAsArray() as unknown as { name: string; labelNames?: string[]; constructor: { name: string } }[]) {
      const labels = new Set(m.labelNames ?? []);
      const series = m.constructor.name === 'Histogram' ? ['_bucket', '_sum', '_count'].map((s) => m.name + s) : [m.name];
      if (m.constructor.name === 'Histogram') labels.add('le');
      for (const s of series) names.set(s, labels);
    }
  }
  return names;
}

// PromQL words that are not metric names (functions, keywords, Grafana's variables)
const PROMQL_WORDS = new Set(['sum', 'max', 'min', 'count', 'avg', 'by', 'without', 'on', 'ignoring', 'and', 'or', 'unless', 'rate', 'irate', 'increase', 'changes', 'topk', 'bottomk', 'histogram_quantile', 'group_left', 'group_right']);
// labels every scraped series has from Prometheus itself
const TARGET_LABELS = new Set(['job', 'instance']);

/** What an expression names that the registries do not have: metric names and labels. */
function unknownIn(expr: string, names: Map<string, Set<string>>): string[] {
  const stripped = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\[[^\]]*\]/g, '');
  const metrics = [...stripped.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b\s*(?=\{|\)|$|\s|\[)/g)]
    .map((m) => m[1])
    .filter((w) => !PROMQL_WORDS.has(w) && !/^\d/.test(w) && /_/.test(w));
  const labelsUsed = [
    ...[...stripped.matchAll(/\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g)].flatMap((m) => m[1].split(',').map((s) => s.trim()).filter(Boolean)),
    ...[...stripped.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...m[1].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((x) => x[1])),
  ];
  const known = metrics.filter((m) => names.has(m));
  const labels = new Set(known.flatMap((m) => [...names.get(m)!]));
  return [
    ...metrics.filter((m) => !names.has(m) && !labelsUsed.includes(m)).map((m) => `metric ${m}`),
    ...labelsUsed.filter((l) => !labels.has(l) && !TARGET_LABELS.has(l)).map((l) => `label ${l}`),
  ];
}

describe('the Grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
  const names = exposed([new Metrics().registry, new WorkerMetrics({ processMetrics: false }).registry]);

  it('queries only metrics and labels the API and the worker register', () => {
    const exprs = expressions(dashboard);
    expect(exprs.length).toBeGreaterThanOrEqual(12);
    const unknown = exprs.flatMap(({ panel, expr }) => unknownIn(expr, names).map((u) => `${panel}: ${u} in ${expr}`));
    expect(unknown).toEqual([]);
  });

  it('shows every metric the issue asks for', () => {
    const all = expressions(dashboard).map((e) => e.expr).join('\n');
    for (const m of ['switchyard_http_requests_total', 'switchyard_http_request_duration_seconds_bucket', 'switchyard_recomputes_total',
      'switchyard_recompute_duration_seconds_bucket', 'switchyard_queue_jobs', 'switchyard_queue_wait_seconds_bucket',
      'switchyard_dispatcher_lag_events', 'switchyard_dispatcher_lag_seconds', 'switchyard_snapshot_bytes', 'switchyard_snapshot_version',
      'switchyard_sse_subscribers', 'switchyard_build_info']) expect(all, m).toContain(m);
  });

  it('the check catches a name or a label that drifted', () => {
    expect(unknownIn('sum by (status) (rate(switchyard_http_requests_total[5m]))', names)).toEqual(['label status']);
    expect(unknownIn('max(switchyard_dispatcher_lag)', names)).toEqual(['metric switchyard_dispatcher_lag']);
    expect(unknownIn('histogram_quantile(0.99, sum by (le) (rate(switchyard_recompute_duration_seconds_bucket{kind="Gateway"}[5m])))', names)).toEqual([]);
  });
});
