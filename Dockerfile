# syntax=docker/dockerfile:1

# ---- build: compile TypeScript and the native addon, then drop dev dependencies
FROM node:20-bookworm-slim AS build

# better-sqlite3 is a native addon: its install script fetches a prebuilt binary
# when one matches, and otherwise compiles with node-gyp (python3, make, g++).
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# Dependencies first, so this layer is reused while only the sources change.
# A plain `npm ci` would also run our own `prepare` script (= the TypeScript
# build) before the sources are copied, so lifecycle scripts are skipped here
# and the one install script we need (the native addon) is run explicitly.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3

COPY tsconfig.json ./
COPY src ./src
COPY projections ./projections
COPY bin ./bin
RUN npm run build && npm prune --omit=dev --ignore-scripts

# ---- runtime: production dependencies, compiled output and the CLI entry only
FROM node:20-bookworm-slim AS runtime

# HOST: every interface inside the container (the default is loopback, for a laptop).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/data

WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin

# The code stays root-owned (read-only to the process); only the embedded-mode
# data folder is writable by the unprivileged `node` user of the base image.
RUN mkdir -p /app/data && chown node:node /app/data
USER node

EXPOSE 3000
CMD ["node", "bin/chronicle.js", "serve"]
