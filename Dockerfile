# extenddb: a DynamoDB-compatible server, as a drop-in for the
# amazon/dynamodb-local image (same port, same options, same GET / answer).
#
#   docker build -t extenddb .
#   docker run -p 8000:8000 extenddb                      # data in the volume /home/dynamodblocal/data
#   docker run -p 8000:8000 extenddb -inMemory -sharedDb  # DynamoDB Local's options
#
# See docs/operations.md. e2e/docker_test.go runs the build stage's steps.

# Build stage: a static binary (SQLite compiled in).
FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=
RUN scripts/build-static.sh /out/extenddb "$VERSION" \
	&& /out/extenddb version \
	&& mkdir -p /out/home/data

# Run stage: the binary alone, as the unprivileged user "nonroot" (65532).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/extenddb /usr/local/bin/extenddb
# DynamoDB Local's working directory, so that its compose files' volumes
# (./data:/home/dynamodblocal/data) and -dbPath ./data work unchanged.
COPY --from=build --chown=65532:65532 /out/home /home/dynamodblocal
WORKDIR /home/dynamodblocal
USER 65532:65532
# Like DynamoDB Local, the image serves without authentication
# (EXTENDDB_INSECURE allows it on 0.0.0.0); set EXTENDDB_ROOT_ACCESS_KEY_ID
# and EXTENDDB_ROOT_SECRET_ACCESS_KEY to turn it on (docs/security.md).
ENV EXTENDDB_LISTEN=0.0.0.0:8000 \
    EXTENDDB_DATA_DIR=/home/dynamodblocal/data \
    EXTENDDB_INSECURE=true
VOLUME /home/dynamodblocal/data
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
	CMD ["/usr/local/bin/extenddb", "health"]
ENTRYPOINT ["/usr/local/bin/extenddb", "serve"]
