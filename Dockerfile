# syntax=docker/dockerfile:1
# Podium's image: the five services, the `podium` client and `podium-data`. compose.yaml builds it; by hand:
#   docker build -t podium:local .
#
# The build stage runs scripts/build, the same script as everywhere else. The Swift runtime
# libraries the services use are copied into the runtime stage once, shared by all five (linking
# them statically would put a copy of Foundation and its ICU data, about 60 MB, into each). The
# `podium` client alone is linked statically, so that it also runs outside the image, on any Linux
# of the same architecture with libzmq5 (`docker compose cp gateway:/usr/local/bin/podium .`).
# The toolchain matches the one Podium is developed and tested with (Swift 6.3).
# The build directory (/src/.build: the package checkouts and everything compiled) is a cache
# mount: it is not part of any image, and the next build on the same machine compiles only what
# changed, in practice Podium's own modules and not its dependencies. `docker builder prune`
# (with podman: removing /var/tmp/buildah-cache) empties it.
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
WORKDIR /src
# System libraries, then package dependencies: each layer stays cached until its input changes.
COPY scripts/install-deps scripts/install-deps
RUN scripts/install-deps
COPY Package.swift ./
# The Swift client package (clients/swift) is a path dependency of the root manifest (its tests are
# in the root's test bundle); the image builds only the services, but resolving needs the package.
COPY clients/swift clients/swift
RUN --mount=type=cache,id=podium-swift-build,target=/src/.build swift package resolve
COPY . .
# The static client builds in a directory of its own: `--static-swift-stdlib` compiles every
# module against the static runtime's resources, so in the same directory each build would undo
# the other's and the next image build would compile everything twice from nothing again.
RUN --mount=type=cache,id=podium-swift-build,target=/src/.build scripts/build \
    && swift build -c release --static-swift-stdlib --scratch-path /src/.build/static --product podium \
    && bin="$(swift build -c release --show-bin-path)" \
    && static="$(swift build -c release --static-swift-stdlib --scratch-path /src/.build/static --show-bin-path)" \
    && mkdir -p /out/bin /out/lib \
    && for name in podium-gateway podium-auth podium-leaderboard podium-achievement podium-challenge podium-data; do \
           install -m 0755 --strip "$bin/$name" "/out/bin/$name"; \
       done \
    && install -m 0755 --strip "$static/podium" /out/bin/podium \
    && ldd /out/bin/* | awk '$3 ~ "/lib/swift/linux/" { print $3 }' | sort -u \
        | xargs -r -I{} install -m 0644 {} /out/lib/ \
    && test -n "$(ls /out/lib)"

FROM ${RUNTIME_IMAGE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libzmq5 libsqlite3-0 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --gid 10001 podium \
    && useradd --uid 10001 --gid podium --home-dir /data --no-create-home --shell /usr/sbin/nologin podium \
    && mkdir -p /data \
    && chown podium:podium /data
COPY --from=build /out/lib/ /usr/local/lib/swift/
RUN echo /usr/local/lib/swift > /etc/ld.so.conf.d/swift.conf && ldconfig
COPY --from=build /out/bin/ /usr/local/bin/
# The example games; mount your own game files over /etc/podium/games (docs/GAME-CONFIG.md).
COPY docs/examples/games/ /etc/podium/games/
ENV PODIUM_DATA=/data
WORKDIR /data
VOLUME ["/data"]
USER podium
# Requests (ROUTER), notifications (XPUB) and HTTP; the bus ports 5560-5562 stay inside the network.
EXPOSE 5555 5556 8080
CMD ["podium-gateway"]
