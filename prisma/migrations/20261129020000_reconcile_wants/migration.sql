-- The newest log position on whose account each key was asked to be recomputed. With recomputes,
-- it tells whether the reconciler has caught up with a position (apply?wait, tests).
CREATE TABLE "reconcile_wants" (
  "key"      TEXT PRIMARY KEY,
  "position" BIGINT NOT NULL
);
CREATE INDEX "reconcile_wants_position_idx" ON "reconcile_wants" ("position");
