-- xDS nodes are listed beside snapshot proxies: per resource type, the version the node acknowledged
-- and the one it refused with its error. NULL for a snapshot proxy.
ALTER TABLE "proxy_reports" ADD COLUMN "xds" JSONB;
