// Golden files of the status core: test/golden/status/<case>.in.yaml (multi-document manifests)
// -> <case>.out.yaml (every status computed, the attachment, the resolved backends). Regenerate
// with UPDATE_GOLDEN=1 and review the diff.
//
// Input documents besides ordinary objects:
//   kind: GoldenOptions  {now, controllerName?, supportedFeatures?, unavailablePorts?, description?}
//                        (first document; options of the whole case)
//   kind: GoldenStep     {now, description?, delete?: [{kind, namespace?, name}], supportedFeatures?}
//                        starts the next phase: its deletes, then the documents after it, are
//                        applied to the previous phase's objects (statuses carried over)
// Objects may carry metadata.generation / creationTimestamp / status to set up a previous state.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Document, isMap, isPair, isScalar, isSeq, parseAllDocuments, visit } from 'yaml';
import type { K8sObject } from '../../src/core/model/objects';
import { affectedGateways } from '../../src/core/translate';
import { routeRefs, viewOf } from '../../src/core/refs';
import { CONTROLLER, Store, reconcile } from '../unit/status-harness';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'status');
const update = process.env.UPDATE_GOLDEN === '1';
const ROUTE_KINDS = new Set(['HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute']);

interface Phase {
  step: any;
  docs: K8sObject[];
}

function phasesOf(text: string): { options: any; phases: Phase[] } {
  const docs = parseAllDocuments(text).map((d) => d.toJS()).filter((d) => d && typeof d === 'object');
  let options: any = {};
  const phases: Phase[] = [{ step: {}, docs: [] }];
  for (const d of docs) {
    if (d.kind === 'GoldenOptions') options = d;
    else if (d.kind === 'GoldenStep') phases.push({ step: d, docs: [] });
    else phases[phases.length - 1].docs.push(d);
  }
  return { options, phases };
}

const id = (o: K8sObject) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

export function runCase(text: string): string {
  const { options, phases } = phasesOf(text);
  const store = new Store(Date.parse('2026-01-01T00:00:00.000Z'));
  const out: string[] = [];
  let features: string[] | undefined = options.supportedFeatures;
  phases.forEach((phase, pi) => {
    const now: string = phase.step.now ?? options.now ?? '2026-11-29T17:00:00.000Z';
    if (phase.step.supportedFeatures) features = phase.step.supportedFeatures;
    const changes: { what: string; before?: K8sObject; after?: K8sObject }[] = [];
    for (const d of phase.step.delete ?? []) {
      const before = store.delete(d);
      if (before) changes.push({ what: `Deleted ${d.kind} ${id(before)}`, before: structuredClone(before) });
    }
    for (const d of phase.docs) {
      const prev = store.get(d.kind, d.metadata.namespace, d.metadata.name);
      const before = prev && structuredClone(prev);
      const after = store.apply(d);
      changes.push({ what: `${before ? 'Updated' : 'Created'} ${d.kind} ${id(after)}`, before, after });
    }
    const world = store.world();
    const doc: Record<string, unknown> = { phase: pi + 1 };
    if (pi === 0 && options.description) doc.description = options.description;
    if (phase.step.description) doc.description = phase.step.description;
    doc.now = now;
    if (pi > 0) doc.affected = changes.map((c) => ({ change: c.what, recompute: affectedGateways(world, c.before, c.after).map((g) => `${g.namespace}/${g.name}`) }));
    const { translations } = reconcile(store, {
      controllerName: options.controllerName ?? CONTROLLER, now,
      ...(features ? { supportedFeatures: features } : {}),
      ...(options.unavailablePorts ? { unavailablePorts: options.unavailablePorts } : {}),
    });
    doc.gatewayClasses = store.list('GatewayClass').map((o) => ({ name: o.metadata.name, status: o.status ?? null }));
    doc.gateways = store.list('Gateway').map((o) => ({ gateway: id(o), generation: o.metadata.generation, status: o.status ?? null }));
    doc.routes = store.list().filter((o) => ROUTE_KINDS.has(o.kind))
      .map((o) => ({ route: `${o.kind} ${id(o)}`, generation: o.metadata.generation, status: o.status ?? null }));
    doc.attachments = [...translations].map(([gw, t]) => ({
      gateway: gw,
      listeners: t.attachment.listeners.map((l) => ({
        name: l.listener.name, valid: l.valid,
        routes: l.routes.map((r) => ({ route: `${r.kind} ${id(r.route as K8sObject)}`, parentRefIndex: r.parentRefIndex, hostnames: r.hostnames })),
      })),
      rejected: t.attachment.rejected.map((r) => ({ route: `${r.kind} ${id(r.route as K8sObject)}`, parentRefIndex: r.parentRefIndex, reason: r.reason })),
    }));
    const view = viewOf(world);
    doc.backends = (world.routes as K8sObject[]).map((r) => ({
      route: `${r.kind} ${id(r)}`,
      rules: routeRefs(view, r as any).rules.map((rule) => [
        ...rule.backends.map((b) => backend(b)),
        ...rule.mirrors.map((m) => ({ mirror: m.path, ...backend(m.backend) })),
      ]),
    }));
    out.push(render(doc));
  });
  return out.join('---\n');
}

// One line per condition, per supported kind, per list of names: diffs stay readable.
const FLOW_ITEMS = new Set(['conditions', 'supportedKinds']);
const FLOW_LISTS = new Set(['supportedFeatures', 'hostnames', 'endpoints', 'recompute']);

const CONDITION_KEYS = ['type', 'status', 'reason', 'message', 'lastTransitionTime', 'observedGeneration'];

/** Conditions in one key order, whoever wrote them (input statuses pass through the defaulter). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!value || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (typeof o.type === 'string' && 'status' in o && 'lastTransitionTime' in o) {
    const keys = [...CONDITION_KEYS.filter((k) => k in o), ...Object.keys(o).filter((k) => !CONDITION_KEYS.includes(k))];
    return Object.fromEntries(keys.map((k) => [k, o[k]]));
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, canonical(v)]));
}

function render(value: unknown): string {
  const doc = new Document(canonical(value));
  visit(doc, {
    Pair(_, pair) {
      if (!isPair(pair) || !isScalar(pair.key) || !isSeq(pair.value)) return;
      const k = String(pair.key.value);
      if (FLOW_ITEMS.has(k)) for (const item of pair.value.items) if (isMap(item)) item.flow = true;
      if (FLOW_LISTS.has(k)) pair.value.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

function backend(b: any) {
  const o: Record<string, unknown> = {
    ref: `${b.kind}${b.group ? `.${b.group}` : ''} ${b.namespace}/${b.name}${b.port !== undefined ? `:${b.port}` : ''}`,
    weight: b.weight, valid: b.valid,
  };
  if (b.reason) o.reason = b.reason;
  if (b.appProtocol) o.appProtocol = b.appProtocol;
  o.endpoints = b.endpoints.map((e: any) => `${e.address}:${e.port}`);
  return o;
}

const cases = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.in.yaml')).sort() : [];

describe('golden status', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });
  for (const file of cases) {
    const name = file.replace(/\.in\.yaml$/, '');
    it(name, () => {
      const got = runCase(readFileSync(join(dir, file), 'utf8'));
      const outFile = join(dir, `${name}.out.yaml`);
      if (update) writeFileSync(outFile, got);
      expect(existsSync(outFile), `${outFile} is missing: run with UPDATE_GOLDEN=1`).toBe(true);
      expect(got).toBe(readFileSync(outFile, 'utf8'));
    });
  }
});
