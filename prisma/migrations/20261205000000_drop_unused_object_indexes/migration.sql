-- The reconciler once found a Gateway's routes (parentRefs) and a GatewayClass's Gateways with SQL
-- over objects. It reads them from the worker's object cache now, and no statement filters on
-- either expression, yet every write of an object updated both (the GIN index over parentRefs most):
-- upserts of HTTPRoutes ran 5-10% faster on PostgreSQL without them.
DROP INDEX IF EXISTS "objects_parent_refs_idx";
DROP INDEX IF EXISTS "objects_gateway_class_idx";
