-- A snapshot body is rewritten on every change of its Gateway and read by every API process that
-- delivers it. Compressing it (pglz, the default for large values) cost PostgreSQL more CPU on each
-- write and read than the disk it saved is worth: bodies are stored out of line, uncompressed.
ALTER TABLE "snapshots" ALTER COLUMN "body" SET STORAGE EXTERNAL;
