-- Routes that name a Gateway but are not attached: resolve explains with them, proxies never see
-- them, so they live beside the snapshot and do not move its version.
ALTER TABLE "snapshots" ADD COLUMN "unattached" TEXT NOT NULL DEFAULT '[]';
ALTER TABLE "snapshot_versions" ADD COLUMN "hash" TEXT;
