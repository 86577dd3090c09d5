# syntax=docker/dockerfile:1
#
# QingLong's image: ql (every profile), ql-edge and ql-worker, static
# binaries on a small Debian base that keeps /bin/sh and /bin/bash, which
# tasks in shell mode run under.
#
#   docker build --build-arg QL_VERSION=0.1.0 -t qinglong/qinglong:0.1.0 .
#   docker buildx build --platform linux/amd64,linux/arm64,linux/arm/v7 --build-arg QL_VERSION=0.1.0 -t qinglong/qinglong:0.1.0 .
#
# Every architecture is built by Go's cross-compiler on the build machine's
# own platform (CGO_ENABLED=0; the SQLite driver is pure Go), and the final
# stage runs no command, so no emulation is needed for any target.

ARG GO_VERSION=1.26
ARG DEBIAN_VERSION=bookworm

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-${DEBIAN_VERSION} AS build
ARG TARGETOS
ARG TARGETARCH
ARG TARGETVARIANT
# The version the binaries report (`ql version`); the sources are copied
# without .git, so build.sh cannot read it from a tag here:
#   docker build --build-arg QL_VERSION=0.1.0 -t qinglong/qinglong:0.1.0 .
ARG QL_VERSION=dev
# The commit they report, for the same reason (empty: `ql version` says it
# is unknown):
#   docker build --build-arg QL_VERSION=0.1.0 --build-arg QL_COMMIT=$(git rev-parse HEAD) .
ARG QL_COMMIT=
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# TARGETVARIANT is v7 for linux/arm/v7; Go wants GOARM=7. build.sh is the
# release build (static, stripped; ql-edge without HTTP/2), the one CI
# cross-compiles and BENCHMARKS.md measures.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    export CGO_ENABLED=0 GOOS="${TARGETOS:-linux}" GOARCH="${TARGETARCH:-amd64}" QL_VERSION="$QL_VERSION" QL_COMMIT="$QL_COMMIT" && \
    if [ "$GOARCH" = arm ]; then export GOARM="${TARGETVARIANT#v}"; fi && \
    mkdir -p /out/bin /out/data && \
    sh ./build.sh -o /out/bin ql ql-edge ql-worker

FROM debian:${DEBIAN_VERSION}-slim
# The image's user: never root. A numeric id needs no passwd entry, and
# Kubernetes' runAsNonRoot can verify it.
ARG UID=10001
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/bin/ /usr/local/bin/
COPY --from=build --chown=${UID}:${UID} --chmod=0700 /out/data /var/lib/qinglong
# The standalone and edge profiles keep their state in the working
# directory unless told otherwise (QL_DATA_DIR is not set here: the cluster
# profile refuses it).
ENV HOME=/var/lib/qinglong
USER ${UID}:${UID}
WORKDIR /var/lib/qinglong
VOLUME ["/var/lib/qinglong"]
# API and probes, worker ingress (cluster), metrics.
EXPOSE 8080 8081 9464
ENTRYPOINT ["ql"]
CMD ["serve"]
