-- Kubernetes Events the reconciler and the proxy reports record (served as events.k8s.io/v1 and
-- core v1 Events on the Kubernetes paths). Not the event log: nothing replays them, and rows older
-- than the retention are deleted. A repeat of the same event (same object, type, reason, message
-- and controller) counts into its row: agg_key is their digest.
CREATE TABLE "kube_events" (
  "agg_key" TEXT PRIMARY KEY,
  "namespace" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "uid" TEXT NOT NULL,
  "resource_version" BIGINT NOT NULL,
  "regarding" JSONB NOT NULL,
  "type" TEXT NOT NULL,
  "reason" TEXT NOT NULL,
  "action" TEXT NOT NULL,
  "note" TEXT NOT NULL,
  "reporting_controller" TEXT NOT NULL,
  "reporting_instance" TEXT NOT NULL,
  "count" INTEGER NOT NULL,
  "first_time" TIMESTAMPTZ(6) NOT NULL,
  "last_time" TIMESTAMPTZ(6) NOT NULL
);
CREATE INDEX "kube_events_namespace_name_idx" ON "kube_events" ("namespace", "name");
CREATE INDEX "kube_events_resource_version_idx" ON "kube_events" ("resource_version");
CREATE INDEX "kube_events_last_time_idx" ON "kube_events" ("last_time");
-- Whether a proxy's last report was behind the Gateway's current table for longer than a healthy
-- proxy takes to catch up: a report that changes it (or the error) records an Event.
ALTER TABLE "proxy_reports" ADD COLUMN "stale" BOOLEAN NOT NULL DEFAULT false;
-- kubectl describe and kubectl events --for select an object's Events by its name (and uid)
CREATE INDEX "kube_events_regarding_name_idx" ON "kube_events" ("namespace", (("regarding"->>'name')));
