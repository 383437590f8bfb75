# syntax=docker/dockerfile:1
# toolexec in a container. Build: docker build -t toolexec .
# Run:   docker run -p 8787:8787 -e TOOLEXEC_TOKEN=... -v toolexec-data:/data -v "$PWD":/workspace toolexec

# --- build: compile the native module (better-sqlite3) against this exact Node and libc,
# compile the TypeScript to dist/, then drop what only development needs ---
FROM node:24-bookworm-slim AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# prune keeps the compiled better-sqlite3; tsc, tsx and the test tools go.
RUN npm run build \
  && npm prune --omit=dev --no-audit --no-fund

# --- runtime: no compilers, non-root, data on a volume ---
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    TOOLEXEC_DATA_DIR=/data \
    TOOLEXEC_WORKSPACE=/workspace
# bubblewrap confines every Bash command (README: Bash in a sandbox). It needs user namespaces:
# Docker's default seccomp profile refuses them, so either run with a profile that allows them
# or accept that commands are not confined (the fast path is then off; /healthz says which).
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Owned by root so the server (user node) cannot change its own code or modules.
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# package.json makes dist/*.js ES modules and gives --version; dist/ reads migrations/ beside it.
COPY package.json ./
COPY migrations ./migrations
# The web console's built page and assets (committed; no build step here).
COPY web/dist ./web/dist
RUN mkdir -p /data /workspace && chown node:node /data /workspace
USER node
VOLUME ["/data"]
EXPOSE 8787
# slim has no curl; /healthz never needs the token.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8787) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# One process (no npm, no shell) so SIGTERM from `docker stop` reaches the server.
# On 0.0.0.0 the server refuses to start without TOOLEXEC_TOKEN (src/config.ts).
CMD ["node", "dist/main.js"]
