# nodecheck in a container: docs/docker.md has the `docker run` lines (privileged access,
# --pid=host, the /sys, /dev and datadir mounts, io_uring and seccomp).
#
#   docker build -t nodecheck .

# Build stage: the same release build `cargo xtask dist` ships (stripped, `--locked`).
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p nodecheck

# Runtime stage: Debian slim with smartmontools, which nodecheck runs for SMART data as root.
# Same Debian release as the build stage, so the binary's glibc is there.
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends smartmontools \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/nodecheck /usr/local/bin/nodecheck
ENTRYPOINT ["nodecheck"]
