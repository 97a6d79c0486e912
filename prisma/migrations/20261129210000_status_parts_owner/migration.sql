-- A recompute reads and prunes the status parts its Gateway owns (WHERE owner = ...). Without an
-- index both scanned every part in the store, so one Gateway's recompute grew with the number of
-- routes of all Gateways (bench:reconcile: 1.8 ms per scan at 10,000 routes).
CREATE INDEX "status_parts_owner_idx" ON "status_parts" ("owner");
