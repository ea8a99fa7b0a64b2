# syntax=docker/dockerfile:1
# Build: the README's commands (npm ci, then compile). --ignore-scripts: the base image is already the Node
# of .nvmrc, so the `node` development dependency's preinstall (a second Node 24, 189 MB) is not run, and
# nothing the compiler needs has an install script.
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY vendor ./vendor
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/bundle.ts ./scripts/
COPY src ./src
# Type-checks, then bundles the production entry into dist/ (scripts/bundle.ts says what stays in node_modules).
RUN npm run build
# The trusted documents the image runs: the manifest `npm run codegen` writes from the frontends' operations.
COPY examples/client/gql/persisted-documents.json ./dist/persisted-documents.json

# Run: production dependencies only (no tsx; no GraphiQL assets, an optional dependency production never
# serves), non-root. dist/ holds the production entry alone: the development entry, its demo and the
# simulator are never imported by it. Only documents of the manifest run (README "Image").
FROM node:24.21.0-bookworm-slim AS run
ENV NODE_ENV=production PORT=4000 PERSISTED_DOCUMENTS=/app/dist/persisted-documents.json
WORKDIR /app
COPY package.json package-lock.json ./
COPY vendor ./vendor
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 4000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# The young generation capped at 32 MiB a semi-space (Node 24's default grows it to 64): README "Image".
CMD ["node", "--max-semi-space-size=32", "dist/server.js"]
