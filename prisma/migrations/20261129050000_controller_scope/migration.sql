-- Several controllers may share one store: each owns its snapshots, status parts, checkpoints and
-- requests, keyed by its controller name, and never touches another's.
ALTER TABLE "snapshots" ADD COLUMN "controller" TEXT NOT NULL DEFAULT '';
