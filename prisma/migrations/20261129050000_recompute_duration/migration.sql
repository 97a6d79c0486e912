-- How long each Gateway's last recompute took (load, translate, compile, write), in milliseconds:
-- what `npm run bench:reconcile` reads to tell per-Gateway work from global work.
ALTER TABLE "recomputes" ADD COLUMN "duration_ms" DOUBLE PRECISION;
