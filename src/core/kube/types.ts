// The Kubernetes API's own wire shapes (meta.k8s.io, apidiscovery.k8s.io, authorization.k8s.io) that
// the Kubernetes paths answer with. They are Kubernetes' contract, not Switchyard's, so they live here
// once rather than in openapi/.

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

/** meta/v1 Status: what every error on the Kubernetes paths is */
export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message: string;
  reason: string;
  details?: { name?: string; group?: string; kind?: string; uid?: string; causes?: StatusCause[]; retryAfterSeconds?: number };
  code: number;
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: unknown;
}
