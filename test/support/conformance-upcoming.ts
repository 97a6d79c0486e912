// What the runners of the upcoming conformance cases (test/corpora/conformance/upcoming) share: the
// GatewayClass each case runs against, and the cases that do not pass yet and why.
import type { K8sObject } from '../../src/core/model/objects';
import { LISTENER_SET_STATUS_ANNOTATION } from '../../src/core/status/listener-set-mode';
import { CLASS_NAME } from './conformance';

/**
 * Pull requests whose cases contradict the released tests they change (same objects, a condition
 * both state with different reasons), so that no one status passes both: their cases run against
 * a GatewayClass of their own that opts into the pull request's reading, as an implementation runs
 * upstream's suite against the class it names, while the main corpus keeps the default class.
 *
 * #4815 (ListenerSet status): the released ListenerSetHostnameConflict and ListenerSetProtocolConflict
 * want a conflicted ListenerSet listener Accepted=False with the conflict's reason
 * (HostnameConflict, ProtocolConflict), #4815 wants Conflicted, on the same listeners. All twelve
 * of its cases run against the class that opts in; #4692's versions of the two run against the
 * default class, like every other upcoming case.
 */
export const OPT_IN_CLASSES: Readonly<Record<number, { name: string; annotations: Record<string, string> }>> = {
  4815: { name: `${CLASS_NAME}-pr4815`, annotations: { [LISTENER_SET_STATUS_ANNOTATION]: 'pr4815' } },
};

/** The GatewayClass an upcoming case (its index entry) runs against: its pull request's, or the default one. */
export function classNameFor(entry: { pr?: number }): string {
  return (entry.pr !== undefined ? OPT_IN_CLASSES[entry.pr]?.name : undefined) ?? CLASS_NAME;
}

/** The opt-in GatewayClasses, for our controller: written with the base objects. */
export function optInGatewayClasses(controllerName: string): K8sObject[] {
  return Object.values(OPT_IN_CLASSES).map((c) => ({
    apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass',
    metadata: { name: c.name, annotations: { ...c.annotations } },
    spec: { controllerName },
  } as K8sObject));
}

/**
 * Cases that do not pass yet, with the reason; empty when every upcoming case passes. A case listed
 * here that passes fails the test as well, so that the list only shrinks.
 */
export const STILL_FAILING: Record<string, string> = {};
