# syntax=docker/dockerfile:1
# Build stage: install everything, bundle src/ into dist/.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` builds, which needs the sources copied below.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.lib.json ./
COPY src ./src
COPY routes ./routes
COPY migrations ./migrations
COPY ui ./ui
RUN npm run build

# Runtime stage: production dependencies and the bundle only, as a non-root user.
FROM node:20-bookworm-slim AS runtime
# MALLOC_ARENA_MAX and the event loop's young generation: ~100 MB less at the peak of 4
# compacting clients (docs/benchmarks.md "Footprint").
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 PGLITE_DATA_DIR=/data MALLOC_ARENA_MAX=2
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--max-semi-space-size=4", "dist/server.js"]
