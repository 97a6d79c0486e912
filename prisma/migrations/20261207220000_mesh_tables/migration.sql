-- The mesh table of each client namespace (GAMMA): one row per namespace and controller. Its
-- version moves only when the table's content (hash) changes, and only forwards from a newer log
-- position, so that two writers never take it back.
CREATE TABLE "mesh_tables" (
  "namespace" TEXT NOT NULL,
  "controller" TEXT NOT NULL,
  "version" BIGINT NOT NULL,
  "hash" TEXT NOT NULL,
  "body" TEXT NOT NULL,
  "source_position" BIGINT NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "mesh_tables_pkey" PRIMARY KEY ("namespace", "controller")
);
