// What every router gets: the services and the edges they share.
import type { Logger } from 'pino';
import type { Response } from 'express';
import type { Config } from '../../config/env';
import type { Database } from '../store/database';
import type { ResourceService } from '../../service/resources';
import type { Bus } from '../delivery/bus';
import type { Metrics } from './metrics';
import type { Authenticator } from '../../service/principal';
import type { SnapshotHub } from '../delivery/snapshots';
import type { TokenStore } from '../../service/tokens';
import type { Limits } from './limits';
import type { Readiness } from './readiness';

export interface AppContext {
  config: Config;
  db: Database;
  resources: ResourceService;
  bus: Bus;
  metrics: Metrics;
  logger: Logger;
  auth: Authenticator;
  /** open SSE responses, ended on shutdown */
  sse: Set<Response>;
  readiness: () => Promise<Readiness>;
  version: string;
  snapshots: SnapshotHub;
  tokens: TokenStore;
  limits: Limits;
}
