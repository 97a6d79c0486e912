// The Kubernetes API's own wire shapes that the Kubernetes paths answer with, named from the
// generated spec types (openapi/schemas/kube.yaml), where they are written once.
import type { components } from '../../generated/api';

type S = components['schemas'];

export type StatusCause = S['KubeStatusCause'];
/** meta/v1 Status: what every error on the Kubernetes paths is */
export type KubeStatus = S['KubeStatus'];
export type APIResource = S['KubeAPIResource'];
export type TableColumn = S['KubeTableColumn'];
export type WatchEvent = S['KubeWatchEvent'];
