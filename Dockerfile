# payments-sandbox as an OCI image (docs/containers.md). Builds with docker or podman:
#   docker build -t payments-sandbox .            (on node:20-bookworm-slim)
#   npm run image                                  (the same, tagged with the version; IMAGE_BASE=debian
#                                                  builds on a Node base made from Debian's packages)
# Behind a TLS-inspecting proxy, give npm its certificate authority: --secret id=ca,src=/path/ca.pem
ARG BASE=node:20-bookworm-slim

FROM ${BASE} AS build
# Named, so that `npm run image` removes this stage's image once the final one is built (podman
# keeps it, untagged, about 550 MB).
LABEL io.payments-sandbox.stage=build
# A base without npm (Debian's nodejs package has none): fetch npm's own tarball, checked against its
# integrity, rather than Debian's npm and its 360 packages. `npm run image` passes both, as the host's
# npm client reports them (`npm view npm@10 dist.tarball dist.integrity`).
ARG NPM_TARBALL=
ARG NPM_INTEGRITY=
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: the prepare script would build before the sources are here (built below).
RUN --mount=type=secret,id=ca \
    --mount=type=cache,target=/root/.npm \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi; \
    if ! command -v npm >/dev/null; then \
      if [ -z "$NPM_TARBALL" ] || [ -z "$NPM_INTEGRITY" ]; then echo 'this base has no npm: pass --build-arg NPM_TARBALL=... --build-arg NPM_INTEGRITY=... (npm run image does)' >&2; exit 1; fi; \
      node -e "fetch(process.argv[1]).then(async (r) => { if (!r.ok) throw new Error('HTTP ' + r.status); const b = Buffer.from(await r.arrayBuffer()); const i = 'sha512-' + require('crypto').createHash('sha512').update(b).digest('base64'); if (i !== process.argv[2]) throw new Error('integrity ' + i); require('fs').writeFileSync('/tmp/npm.tgz', b); }).catch((e) => { console.error('fetching npm: ' + e.message); process.exit(1); })" "$NPM_TARBALL" "$NPM_INTEGRITY" \
      && mkdir -p /opt/npm && tar -xzf /tmp/npm.tgz -C /opt/npm --strip-components=1 && rm /tmp/npm.tgz \
      && printf '#!/bin/sh\nexec node /opt/npm/bin/npm-cli.js "$@"\n' > /usr/local/bin/npm && chmod +x /usr/local/bin/npm; \
    fi \
 && npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json openapi.json openapi.admin.json ./
COPY src src
COPY fixtures fixtures
COPY scenarios scenarios
# /out: what `node dist/bundle/cli.js` reads, and nothing else. esbuild bundles every dependency
# but swagger-ui-dist (its files are served as they are), so that is the only module kept.
RUN npm run build \
 && mkdir -p /out/app/dist/fixtures /out/app/fixtures /out/app/node_modules /out/data \
 && cp -r package.json openapi.json openapi.admin.json scenarios /out/app/ \
 && cp -r dist/bundle dist/scenarios-catalog.json /out/app/dist/ \
 && cp dist/fixtures/seed-*.json /out/app/dist/fixtures/ \
 && cp -r fixtures/keys /out/app/fixtures/ \
 && cp -r node_modules/swagger-ui-dist /out/app/node_modules/

FROM ${BASE}
COPY --from=build /out/app /app
# The volume for --data-file (and the sandbox CA made with --tls), writable by the user below.
COPY --from=build --chown=1000:1000 /out/data /data
WORKDIR /data
# Not root. A number, not a name: the Debian base has no user 1000 and needs none.
USER 1000:1000
# Clients come from the container network, never from loopback: listen on every interface and
# serve the control API without a token (a warning says so at start). Publish the port on
# 127.0.0.1 (-p 127.0.0.1:4010:4010), or set SANDBOX_ADMIN_TOKEN: docs/containers.md says why.
ENV HOME=/data \
    NODE_ENV=production \
    SANDBOX_HOST=0.0.0.0 \
    SANDBOX_PORT=4010 \
    SANDBOX_CONTROL_API=open \
    SANDBOX_TLS_DIR=/data/tls \
    SANDBOX_LOG_FORMAT=json \
    SANDBOX_IMAGE=payments-sandbox
VOLUME /data
EXPOSE 4010
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "const t=process.env.SANDBOX_ADMIN_TOKEN;fetch('http://127.0.0.1:'+(process.env.SANDBOX_PORT||4010)+'/_sandbox/health',{headers:t?{'x-sandbox-admin-token':t}:{}}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and gets SIGTERM itself (it flushes the data file and exits 0 at once).
# Arguments are the CLI's: `docker run IMAGE token` prints a token, `docker run IMAGE --seed 7` starts.
ENTRYPOINT ["node", "--max-semi-space-size=8", "/app/dist/bundle/cli.js"]
CMD ["start"]
