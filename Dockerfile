# Switchboard as a container: `docker compose up` with compose.yaml runs it next
# to PostgreSQL and Redis. Two stages: the first installs the runtime
# dependencies only (tsx runs the TypeScript directly, so there is no build
# step); the second holds those and the sources, and runs as the unprivileged
# `node` user.
FROM node:20-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:20-slim
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY migrations ./migrations
COPY manifests ./manifests
# DATA_DIR holds the generated secret when SWITCHBOARD_SECRET is unset, the
# embedded database without DATABASE_URL, and the CLI's control socket.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# Ready means the database and the queue answer, not only that the process is up.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/switchboard.mjs"]
CMD ["serve"]
