-- API tokens: only a SHA-256 of each token is kept; the name is the actor in the audit trail.
CREATE TABLE "tokens" (
  "id"         TEXT PRIMARY KEY,
  "name"       TEXT NOT NULL UNIQUE,
  "role"       TEXT NOT NULL,
  "namespaces" TEXT[] NOT NULL DEFAULT '{}',
  "gateways"   TEXT[] NOT NULL DEFAULT '{}',
  "hash"       TEXT NOT NULL UNIQUE,
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  "expires_at" TIMESTAMPTZ(3),
  "revoked_at" TIMESTAMPTZ(3)
);
