-- A snapshot is rewritten on every change of its Gateway. Its JSON is stored deflated by the
-- worker (a tenth of the bytes to send, log and fsync, which dominated a recompute's write) and
-- without the version, which the statement that writes it assigns; readers put the body together.
-- PostgreSQL does not compress it again.
ALTER TABLE "snapshots" ADD COLUMN "tail_z" BYTEA;
ALTER TABLE "snapshots" ALTER COLUMN "tail_z" SET STORAGE EXTERNAL;
ALTER TABLE "snapshots" ALTER COLUMN "body" DROP NOT NULL;
