-- What each proxy reports it serves, per Gateway. Not events: a report is no object change, and an
-- entry whose proxy has gone quiet is left out of lists and deleted later.
CREATE TABLE "proxy_reports" (
  "gateway" TEXT NOT NULL,
  "proxy_id" TEXT NOT NULL,
  "version" BIGINT,
  "hash" TEXT,
  "error" TEXT,
  "last_seen" TIMESTAMPTZ NOT NULL,
  PRIMARY KEY ("gateway", "proxy_id")
);
CREATE INDEX "proxy_reports_last_seen_idx" ON "proxy_reports" ("last_seen");
