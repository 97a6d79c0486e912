-- Where each object's status last changed, in the log's position space: a status write's position
-- is its transaction's id * 2^20 + the object's index among those it changed, so it sorts with the
-- events and readers see it under the same horizon (see eventlog.ts). The Kubernetes paths' resource
-- version of an object is the greater of its last event's position and this one, so a status change
-- is a new resourceVersion that a watch delivers and an informer sees. Kept across rebuilds, as
-- snapshot_versions is: a resourceVersion never goes back.
CREATE TABLE IF NOT EXISTS status_positions (
  stream   TEXT PRIMARY KEY,
  position BIGINT NOT NULL,
  time     TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS status_positions_position_idx ON status_positions (position);
