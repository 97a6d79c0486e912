// The object projection as a fold over the log: the row of a stream is its newest event.
export interface LogEvent {
  position: number;
  stream?: string;
  type: 'Created' | 'Updated' | 'Deleted';
  kind: string;
  namespace: string;
  name: string;
  version: number;
  object: unknown;
}

export interface ProjectionRow {
  stream: string;
  kind: string;
  namespace: string;
  name: string;
  version: number;
  deleted: boolean;
  object: unknown;
  position: number;
}

export function evolve(_current: ProjectionRow | undefined, ev: LogEvent): ProjectionRow {
  return {
    stream: ev.stream ?? `${ev.kind}/${ev.namespace}/${ev.name}`,
    kind: ev.kind, namespace: ev.namespace, name: ev.name, version: ev.version,
    deleted: ev.type === 'Deleted', object: ev.object, position: ev.position,
  };
}
