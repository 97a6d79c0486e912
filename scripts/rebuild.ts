// `npm run rebuild`: drop every projection and replay the log (DATABASE_URL, else the embedded store).
import { join, resolve } from 'node:path';
import { loadConfig } from '../src/config/env';
import { openDatabase } from '../src/adapters/store/database';
import { migrate } from '../src/adapters/store/migrate';
import { rebuildProjections, rebuildReconciled } from '../src/service/rebuild';

const config = loadConfig();
const db = await openDatabase({ url: config.databaseUrl, dataDir: join(resolve(config.dataDir), 'pgdata') });
await migrate(db);
const started = Date.now();
const out = await rebuildProjections(db);
const rec = await rebuildReconciled(db, config.controllerName, config.addressPool, config.clusterDomain);
console.log(`rebuilt ${out.objects} objects from ${out.events} events, then ${rec.gateways} Gateways and ${rec.classes} GatewayClasses, in ${Date.now() - started} ms`);
await db.close();
