-- A proxy token's mesh scope: the client namespace whose mesh table it may read (GAMMA outbound proxies).
ALTER TABLE "tokens" ADD COLUMN "mesh" TEXT;
