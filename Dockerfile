# Two stages: the build stage has the whole toolchain (dev dependencies, the Prisma generator, esbuild)
# and bundles the service into dist/; the runtime stage has production dependencies and dist/ only, so
# nothing compiles at run time and no compiler ships.

FROM node:22-bookworm-slim AS build
WORKDIR /app
# the schema engine is not needed (migrations are plain SQL) and would be a download
ENV PRISMA_SCHEMA_ENGINE_BINARY=/bin/false
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
# its postinstall generates the Prisma client into src/generated/prisma, which the bundles include
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:22-bookworm-slim
# tini is PID 1: it forwards docker stop's SIGTERM to node and reaps what node leaves behind, so node
# shuts down gracefully instead of being killed when the grace period ends
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production SWITCHYARD_DATA_DIR=/data
# glibc's malloc gives freed memory back above 128 KiB instead of raising that bar as it goes (it kept
# some 50 MB the worker had freed after a 50,000-route burst); package.json's scripts set the same
ENV MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072
COPY package.json package-lock.json ./
# --ignore-scripts: our own postinstall runs the Prisma generator, a dev dependency, and dist/
# already holds what it generated. --omit=optional: @prisma/client names the prisma CLI and
# typescript as optional peers, which npm would otherwise install (about 240 MB, and a compiler);
# it also leaves out msgpackr's native speed-up, which bullmq does without
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
# the embedded database and the generated admin token, when no DATABASE_URL / ADMIN_TOKEN is given
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
# 8080: the API; 18000: xDS (XDS_PORT, gRPC: TLS, or plaintext from loopback unless XDS_PLAINTEXT=true)
EXPOSE 8080 18000
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--max-semi-space-size=4", "--v8-pool-size=1", "dist/main.js"]
