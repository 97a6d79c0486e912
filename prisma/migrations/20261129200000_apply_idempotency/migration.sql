-- POST /api/v1/apply: Idempotency-Key records (per token name), kept 24 hours, and an index for the
-- members of an apply set (the objects labelled switchyard.dev/apply-set), which prune looks up.
CREATE TABLE "apply_idempotency" (
  "actor"        TEXT NOT NULL,
  "key"          TEXT NOT NULL,
  "request_hash" TEXT NOT NULL,
  "status"       INTEGER NOT NULL,
  "response"     JSONB NOT NULL,
  "created_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("actor", "key")
);
CREATE INDEX "apply_idempotency_created_at_idx" ON "apply_idempotency" ("created_at");
CREATE INDEX "objects_apply_set_idx" ON "objects" ((object->'metadata'->'labels'->>'switchyard.dev/apply-set')) WHERE NOT deleted;
