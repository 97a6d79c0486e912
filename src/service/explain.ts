// Why an object has no status from this controller: read-only, computed on request (the core's
// explainStatus over the object, the Gateways it names and their classes). Nothing is written:
// a controller does not write status on what it does not own, so this is the only place to say it.
import type { Database } from '../adapters/store/database';
import { getObjects } from '../adapters/store/objects';
import type { KindInfo } from '../core/model/kinds';
import type { Gateway, GatewayClass, K8sObject, ListenerSet } from '../core/model/objects';
import { streamKey } from '../core/objects/keys';
import { explainNeeds, explainStatus, listenerSetGateway, type StatusExplanation } from '../core/analyze';
import type { Actor, ResourceService } from './resources';

export class ExplainService {
  constructor(private readonly resources: ResourceService, private readonly db: Database, private readonly controllerName: string) {}

  async explain(info: KindInfo, namespace: string, name: string, actor: Actor): Promise<StatusExplanation> {
    const object = await this.resources.get(info, namespace, name, actor);
    const needs = explainNeeds(object);
    const listenerSets = (await this.live(needs.listenerSets.map((l) => streamKey('ListenerSet', l.namespace, l.name)))) as ListenerSet[];
    const wanted = [...needs.gateways, ...listenerSets.flatMap((l) => listenerSetGateway(l) ?? [])];
    const gateways = (await this.live(wanted.map((g) => streamKey('Gateway', g.namespace, g.name)))) as Gateway[];
    const classNames = new Set([...needs.gatewayClasses, ...gateways.map((g) => String(g.spec?.gatewayClassName ?? ''))]);
    const gatewayClasses = (await this.live([...classNames].map((c) => streamKey('GatewayClass', '', c)))) as GatewayClass[];
    return explainStatus({ object, gateways, gatewayClasses, listenerSets, controllerName: this.controllerName });
  }

  private async live(streams: string[]): Promise<K8sObject[]> {
    if (streams.length === 0) return [];
    const rows = await getObjects(this.db.sql, [...new Set(streams)]);
    return [...rows.values()].filter((r) => !r.deleted).map((r) => r.object);
  }
}
