-- What the reconciler needs: finding a Gateway's routes, its dependencies, and its compiled snapshot.
CREATE INDEX "objects_parent_refs_idx" ON "objects" USING GIN ((object->'spec'->'parentRefs') jsonb_path_ops);
CREATE INDEX "objects_service_name_idx" ON "objects" (kind, namespace, ((object->'metadata'->'labels'->>'kubernetes.io/service-name')));
CREATE INDEX "objects_gateway_class_idx" ON "objects" (kind, ((object->'spec'->>'gatewayClassName')));

-- The objects a Gateway's last recompute read (or looked for): a change to one of them recomputes it.
CREATE TABLE "gateway_deps" (
  "dep"     TEXT NOT NULL,
  "gateway" TEXT NOT NULL,
  PRIMARY KEY ("dep", "gateway")
);
CREATE INDEX "gateway_deps_gateway_idx" ON "gateway_deps" ("gateway");

-- The compiled route table per Gateway, serialized once; version moves only when the hash changes.
CREATE TABLE "snapshots" (
  "gateway"         TEXT PRIMARY KEY,
  "version"         BIGINT NOT NULL,
  "hash"            TEXT NOT NULL,
  "body"            TEXT NOT NULL,
  "source_position" BIGINT NOT NULL,
  "updated_at"      TIMESTAMPTZ(3) NOT NULL
);

-- The highest snapshot version ever issued per Gateway; not a projection, so a rebuild never
-- sends a version backwards.
CREATE TABLE "snapshot_versions" (
  "gateway" TEXT PRIMARY KEY,
  "version" BIGINT NOT NULL
);

-- When each Gateway was last recomputed, and from which log position.
CREATE TABLE "recomputes" (
  "gateway"         TEXT PRIMARY KEY,
  "source_position" BIGINT NOT NULL,
  "at"              TIMESTAMPTZ(3) NOT NULL
);
