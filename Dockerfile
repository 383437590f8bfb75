# syntax=docker/dockerfile:1
# toolexec in a container. Build: docker build -t toolexec .
# Run:   README.md, "Running in a container" (the token, the workspace's owner, the sandbox).

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
# What the tools run besides node and bash:
# - bubblewrap confines every Bash command (README: Bash in a sandbox). It needs a user namespace
#   and a /proc of its own, which Docker's defaults refuse: then commands are not confined (the
#   fast path is off; /healthz says which) unless the run loosens them (README: Running in a container).
# - git: an agent's git commands, and the permission rules read a repository's git config with it;
#   ca-certificates for its https remotes.
# - tini as PID 1: it passes docker stop's SIGTERM to node and reaps the orphans of confined
#   commands, which node (were it PID 1) would leave as zombies; no --init needed.
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap git ca-certificates tini \
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
# Writable by any uid (sticky, as /tmp): `docker run --user "$(id -u):$(id -g)"` runs the server as the
# owner of a bind-mounted workspace, and a named volume on /data starts as a copy of this directory.
RUN mkdir -p /data /workspace && chown node:node /data /workspace && chmod 1777 /data /workspace
USER node
VOLUME ["/data"]
EXPOSE 8787
# slim has no curl; /healthz never needs the token.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8787) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node under tini (no npm, no shell), so SIGTERM from `docker stop` reaches the server.
# On 0.0.0.0 the server refuses to start without TOOLEXEC_TOKEN (src/config.ts).
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
