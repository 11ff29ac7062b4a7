# Redis from Debian's packages, for deploy/compose.yaml on machines that reach no registry:
#   IMAGE_BASE=debian node scripts/image.mjs redis    (builds payments-sandbox-redis:latest)
# With a registry, compose.yaml uses the official redis image instead.
ARG BASE=docker.io/library/debian:trixie-slim
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
USER redis
WORKDIR /data
EXPOSE 6379
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--dir", "/data"]
