// Kubernetes Events as the API serves them: the stored rows (see core/status/events.ts for what is
// recorded) shown as events.k8s.io/v1 Events and as core v1 Events, the same rows in both, as
// kube-apiserver serves one storage at both; their paths, discovery entries, field selectors and
// the Table `kubectl get events` prints. Read only: only the control plane records Events.
import type { APIResource, TableColumn } from './types';
import { humanDuration } from './age';

export const EVENTS_GROUP = 'events.k8s.io';
export const EVENT_VERBS = ['get', 'list', 'watch'];

/** An Event as stored. Times are ISO strings (first and last occurrence). */
export interface StoredKubeEvent {
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: number;
  regarding: { apiVersion: string; kind: string; namespace: string; name: string; uid: string; fieldPath?: string };
  type: string;
  reason: string;
  action: string;
  note: string;
  reportingController: string;
  reportingInstance: string;
  count: number;
  firstTime: string;
  lastTime: string;
}

/** Which of the two API versions a path serves. */
export type EventsApi = 'core' | 'events.k8s.io';

export interface EventsPath {
  api: EventsApi;
  /** '' for every namespace */
  namespace: string;
  name?: string;
  template: string;
}

/**
 * An Events path, or null: /api/v1[/namespaces/{ns}]/events[/{name}] and
 * /apis/events.k8s.io/v1[/namespaces/{ns}]/events[/{name}]. `rest`: the segments after the version.
 */
export function parseEventsPath(group: string, version: string, rest: readonly string[]): EventsPath | null {
  if (version !== 'v1' || (group !== '' && group !== EVENTS_GROUP)) return null;
  const api: EventsApi = group === '' ? 'core' : 'events.k8s.io';
  const base = group === '' ? '/api/v1' : `/apis/${EVENTS_GROUP}/v1`;
  if (rest.length === 1 && rest[0] === 'events') return { api, namespace: '', template: `${base}/events` };
  if (rest[0] === 'namespaces' && rest[2] === 'events' && rest[1] && (rest.length === 3 || rest.length === 4)) {
    const t = `${base}/namespaces/:namespace/events`;
    return rest.length === 3 ? { api, namespace: rest[1], template: t } : { api, namespace: rest[1], name: rest[3], template: `${t}/:name` };
  }
  return null;
}

/** The discovery entry of `events` in core v1 and in events.k8s.io/v1. */
export function eventsApiResource(): APIResource {
  return { name: 'events', singularName: 'event', namespaced: true, kind: 'Event', verbs: EVENT_VERBS, shortNames: ['ev'] };
}

/** The same for aggregated discovery (apidiscovery.k8s.io/v2). */
export function eventsAggregatedResource(group: string) {
  return {
    resource: 'events', responseKind: { group, version: 'v1', kind: 'Event' }, scope: 'Namespaced',
    singularResource: 'event', verbs: EVENT_VERBS, shortNames: ['ev'],
  };
}

const seconds = (iso: string) => `${iso.slice(0, 19)}Z`;
/** MicroTime: six fractional digits, as kube-apiserver writes eventTime. */
const micro = (iso: string) => `${iso.slice(0, 19)}.${(iso.slice(20, 23) || '000').padEnd(3, '0')}000Z`;

function metadata(e: StoredKubeEvent) {
  return { name: e.name, namespace: e.namespace, uid: e.uid, resourceVersion: String(e.resourceVersion), creationTimestamp: seconds(e.firstTime) };
}

/** A repeated Event carries its series (a singleton none), as the events.k8s.io recorder writes it. */
const series = (e: StoredKubeEvent) => (e.count > 1 ? { series: { count: e.count, lastObservedTime: micro(e.lastTime) } } : {});

export function asEventsV1(e: StoredKubeEvent) {
  return {
    apiVersion: `${EVENTS_GROUP}/v1`, kind: 'Event', metadata: metadata(e),
    eventTime: micro(e.firstTime), ...series(e),
    reportingController: e.reportingController, reportingInstance: e.reportingInstance,
    action: e.action, reason: e.reason, regarding: e.regarding, note: e.note, type: e.type,
    deprecatedSource: { component: e.reportingController }, deprecatedFirstTimestamp: seconds(e.firstTime), deprecatedLastTimestamp: seconds(e.lastTime), deprecatedCount: e.count,
  };
}

export function asCoreV1(e: StoredKubeEvent) {
  return {
    apiVersion: 'v1', kind: 'Event', metadata: metadata(e),
    involvedObject: e.regarding, reason: e.reason, message: e.note, source: { component: e.reportingController },
    firstTimestamp: seconds(e.firstTime), lastTimestamp: seconds(e.lastTime), count: e.count, type: e.type,
    eventTime: micro(e.firstTime), ...series(e), action: e.action, reportingComponent: e.reportingController, reportingInstance: e.reportingInstance,
  };
}

export function shownAs(api: EventsApi, e: StoredKubeEvent) {
  return api === 'core' ? asCoreV1(e) : asEventsV1(e);
}

export const listKind = (api: EventsApi) => ({ apiVersion: api === 'core' ? 'v1' : `${EVENTS_GROUP}/v1`, kind: 'EventList' });

// --- field selectors: the fields kube-apiserver lets lists of Events select on

export interface EventFieldRequirement {
  field: string;
  op: 'eq' | 'neq';
  value: string;
}

export class EventFieldSelectorError extends Error {}

const REGARDING_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] as const;

/** The selectable fields of a stored Event by their core v1 names (the events.k8s.io names map onto them). */
function selectable(e: StoredKubeEvent): Record<string, string> {
  const r = e.regarding as Record<string, string | undefined>;
  const out: Record<string, string> = {
    'metadata.name': e.name, 'metadata.namespace': e.namespace, reason: e.reason, type: e.type,
    reportingComponent: e.reportingController, source: e.reportingController,
  };
  for (const f of REGARDING_FIELDS) out[`involvedObject.${f}`] = r[f] ?? '';
  return out;
}

const CORE_FIELDS = new Set(['metadata.name', 'metadata.namespace', 'reason', 'type', 'reportingComponent', 'source', ...REGARDING_FIELDS.map((f) => `involvedObject.${f}`)]);

/** events.k8s.io/v1's field names, mapped onto core v1's (as kube-apiserver converts them). */
const EVENTS_V1_FIELDS: Record<string, string> = {
  'metadata.name': 'metadata.name', 'metadata.namespace': 'metadata.namespace', reason: 'reason', type: 'type',
  reportingController: 'reportingComponent', deprecatedSource: 'source',
  ...Object.fromEntries(REGARDING_FIELDS.map((f) => [`regarding.${f}`, `involvedObject.${f}`])),
};

/** A fieldSelector of an Events list or watch, its fields named as `api` names them. */
export function parseEventFieldSelector(api: EventsApi, input: string): EventFieldRequirement[] {
  const out: EventFieldRequirement[] = [];
  for (const raw of input.split(',')) {
    const part = raw.trim();
    if (!part) continue;
    const m = part.match(/^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/);
    if (!m) throw new EventFieldSelectorError(`"${part.slice(0, 100)}" is not a field requirement (field=value or field!=value)`);
    const field = api === 'core' ? m[1] : Object.hasOwn(EVENTS_V1_FIELDS, m[1]) ? EVENTS_V1_FIELDS[m[1]] : undefined;
    if (field === undefined || !CORE_FIELDS.has(field)) throw new EventFieldSelectorError(`field label not supported: ${m[1].slice(0, 100)}`);
    out.push({ field, op: m[2] === '!=' ? 'neq' : 'eq', value: m[3].trim() });
  }
  return out;
}

export function matchesEventFields(e: StoredKubeEvent, reqs: readonly EventFieldRequirement[]): boolean {
  if (reqs.length === 0) return true;
  const fields = selectable(e);
  return reqs.every((r) => (r.op === 'eq' ? fields[r.field] === r.value : fields[r.field] !== r.value));
}

// --- the Table kubectl get prints (kube-apiserver's printer: five columns, five more with -o wide)

const COLUMNS: TableColumn[] = [
  { name: 'Last Seen', type: 'string', format: '', description: 'The time at which the most recent occurrence of this event was recorded.', priority: 0 },
  { name: 'Type', type: 'string', format: '', description: 'Type of this event (Normal, Warning).', priority: 0 },
  { name: 'Reason', type: 'string', format: '', description: 'Why the action was taken, in a machine-readable form.', priority: 0 },
  { name: 'Object', type: 'string', format: '', description: 'The object this Event is about.', priority: 0 },
  { name: 'Subobject', type: 'string', format: '', description: 'The part of the object this Event is about (its fieldPath).', priority: 1 },
  { name: 'Source', type: 'string', format: '', description: 'The controller that reported this Event.', priority: 1 },
  { name: 'Message', type: 'string', format: '', description: 'A human-readable description of the status of this operation.', priority: 0 },
  { name: 'First Seen', type: 'string', format: '', description: 'The time at which the event was first recorded.', priority: 1 },
  { name: 'Count', type: 'integer', format: '', description: 'The number of times this event has occurred.', priority: 1 },
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 1 },
];

export const eventColumns = (): TableColumn[] => COLUMNS;

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function eventRow(api: EventsApi, e: StoredKubeEvent, now: number, include: IncludeObject) {
  const since = (iso: string) => humanDuration(now - Date.parse(iso));
  const source = e.reportingInstance ? `${e.reportingController}, ${e.reportingInstance}` : e.reportingController;
  // as the printer reads them: the timestamps in whole seconds, a series' last time to the microsecond
  const cells = [
    since(e.count > 1 ? e.lastTime : seconds(e.lastTime)), e.type, e.reason, `${e.regarding.kind.toLowerCase()}/${e.regarding.name}`, e.regarding.fieldPath ?? '', source,
    e.note.trim(), since(seconds(e.firstTime)), e.count, e.name,
  ];
  const row: { cells: unknown[]; object?: unknown } = { cells };
  if (include === 'Object') row.object = shownAs(api, e);
  else if (include === 'Metadata') row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: metadata(e) };
  return row;
}

export function eventTable(api: EventsApi, items: readonly StoredKubeEvent[], now: number, include: IncludeObject, meta: { resourceVersion?: string; continue?: string }) {
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: meta, columnDefinitions: COLUMNS, rows: items.map((e) => eventRow(api, e, now, include)) };
}
