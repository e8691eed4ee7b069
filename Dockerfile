# The gateway's image: `docker build -t qris-gateway .`, or `docker compose up -d` with compose.yaml.
# Multi-stage: the TypeScript is compiled here, and the runtime stage carries dist/ and the production
# dependencies only (no src/, no TypeScript sources), so the container never compiles at start.
# Buildable by BuildKit and by the classic builder (DOCKER_BUILDKIT=0).

# Production dependencies, native ones built for this image's Node.js and C library: better-sqlite3 takes
# a prebuilt binary when one is reachable and compiles itself otherwise (python3, make, g++).
FROM node:20-bookworm-slim AS deps
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Then what the runtime never reads goes: the compiler (a dependency only so that a checkout can compile
# itself at start; this image has no sources, so nothing in it can compile), and better-sqlite3's sources
# and objects beside the one binary it loads.
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force \
 && rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver \
 && cd node_modules/better-sqlite3 \
 && mv build/Release/better_sqlite3.node /tmp/ \
 && rm -rf build deps src \
 && mkdir -p build/Release \
 && mv /tmp/better_sqlite3.node build/Release/

# The build: every dependency, install scripts skipped (the compiler needs the type packages, not native
# binaries), then `npm run build` (tsc, and the browser files copied into dist/).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs scripts/build-steps.mjs scripts/
COPY src src
RUN npm run -s build \
 && find dist -name '*.d.ts' -delete -o -name '*.d.ts.map' -delete

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/data/qris-gateway.db
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
# `qris-gateway <command>` for `docker compose exec gateway qris-gateway ...`: the CLI on the same
# settings (the container's environment) and the same database.
RUN printf '#!/bin/sh\nexec node /app/dist/cli/bin.js "$@"\n' > /usr/local/bin/qris-gateway \
 && chmod 755 /usr/local/bin/qris-gateway \
 && mkdir -p /data \
 && chown node:node /data
# Everything the gateway writes (the SQLite database and its WAL, backups if BACKUP_DIR is under it).
VOLUME /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node is PID 1 and the gateway handles SIGTERM itself (a graceful stop within SHUTDOWN_TIMEOUT_MS);
# compose's stop_grace_period is longer than that default.
CMD ["node", "dist/cli/bin.js", "serve"]
