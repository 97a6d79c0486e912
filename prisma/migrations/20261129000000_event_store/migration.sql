-- The event log and the projections rebuilt from it.
CREATE TABLE "events" (
  "position"  BIGINT PRIMARY KEY,
  "xid"       BIGINT NOT NULL,
  "stream"    TEXT NOT NULL,
  "kind"      TEXT NOT NULL,
  "namespace" TEXT NOT NULL,
  "name"      TEXT NOT NULL,
  "version"   INTEGER NOT NULL,
  "type"      TEXT NOT NULL,
  "actor"     TEXT NOT NULL,
  "time"      TIMESTAMPTZ(3) NOT NULL,
  "object"    JSONB NOT NULL,
  CONSTRAINT "events_stream_version_key" UNIQUE ("stream", "version")
);

CREATE TABLE "objects" (
  "stream"    TEXT PRIMARY KEY,
  "kind"      TEXT NOT NULL,
  "namespace" TEXT NOT NULL,
  "name"      TEXT NOT NULL,
  "version"   INTEGER NOT NULL,
  "deleted"   BOOLEAN NOT NULL,
  "object"    JSONB NOT NULL,
  "position"  BIGINT NOT NULL
);
CREATE INDEX "objects_kind_namespace_name_idx" ON "objects" ("kind", "namespace", "name");

CREATE TABLE "secret_data" (
  "stream" TEXT PRIMARY KEY,
  "data"   JSONB NOT NULL,
  "digest" TEXT NOT NULL
);

CREATE TABLE "status_parts" (
  "stream"   TEXT NOT NULL,
  "owner"    TEXT NOT NULL,
  "position" BIGINT NOT NULL,
  "status"   JSONB NOT NULL,
  PRIMARY KEY ("stream", "owner")
);

CREATE TABLE "checkpoints" (
  "name"     TEXT PRIMARY KEY,
  "position" BIGINT NOT NULL
);
