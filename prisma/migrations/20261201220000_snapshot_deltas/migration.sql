-- A one-route change to a Gateway of thousands of routes used to rewrite its whole table. Now a
-- new version is stored as its delta from the one before (openapi/schemas/snapshot-delta.yaml);
-- the row in snapshots keeps the last whole table, of version base_version (NULL: of the row's own
-- version), and readers rebuild the body from it and the deltas after it. A whole table is written
-- again every few versions, which drops the deltas before it.
ALTER TABLE "snapshots" ADD COLUMN IF NOT EXISTS "base_version" BIGINT;
CREATE TABLE IF NOT EXISTS "snapshot_deltas" (
  "gateway" TEXT NOT NULL,
  "version" BIGINT NOT NULL,
  "delta" TEXT NOT NULL,
  CONSTRAINT "snapshot_deltas_pkey" PRIMARY KEY ("gateway", "version")
);
