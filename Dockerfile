# syntax=docker/dockerfile:1
# Build: the same commands as the README (npm ci, then compile).
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY vendor ./vendor
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Run: production dependencies only (no tsx), non-root. dist/ holds the production entry alone: the
# development entry, its demo and the simulator are left out by tsconfig.build.json.
FROM node:24.21.0-bookworm-slim AS run
ENV NODE_ENV=production PORT=4000
WORKDIR /app
COPY package.json package-lock.json ./
COPY vendor ./vendor
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 4000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# The young generation capped at 32 MiB a semi-space (Node 24's default grows it to 64): README "Image".
CMD ["node", "--max-semi-space-size=32", "dist/server.js"]
