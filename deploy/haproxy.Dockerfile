# HAProxy from Debian's packages, for deploy/compose.yaml on machines that reach no registry:
#   IMAGE_BASE=debian node scripts/image.mjs haproxy    (builds payments-sandbox-haproxy:latest)
# With a registry, compose.yaml uses the official haproxy image instead.
ARG BASE=docker.io/library/debian:trixie-slim
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy \
 && rm -rf /var/lib/apt/lists/*
USER haproxy
EXPOSE 4010
CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
