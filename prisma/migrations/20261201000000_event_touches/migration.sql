-- The dependency keys each event touches (src/core/deps), stamped when it is written, so that the
-- dispatcher and a recompute's check for missed changes match keys instead of knowing the rules.
-- Events written before this column are stamped at start-up (src/adapters/store/touches-backfill.ts).
ALTER TABLE "events" ADD COLUMN "touches" TEXT[];
CREATE INDEX "events_touches_pending_idx" ON "events" ("position") WHERE "touches" IS NULL;

-- Gateways now record their GatewayClass like any other dependency; those computed before did not.
INSERT INTO "gateway_deps" ("dep", "gateway")
SELECT 'GatewayClass//' || (o."object"->'spec'->>'gatewayClassName'), r."gateway"
FROM "recomputes" r
JOIN "objects" o ON o."kind" = 'Gateway' AND NOT o."deleted"
  AND r."gateway" LIKE '%|Gateway/' || o."namespace" || '/' || o."name"
WHERE o."object"->'spec'->>'gatewayClassName' IS NOT NULL
ON CONFLICT DO NOTHING;
