# The s3bulk image: one static binary on distroless, run as a non-root
# user, no shell. Build it from a clone:
#
#   docker build -t ghcr.io/s3bulk/s3bulk:dev .
#
# Release images are built by goreleaser from the binaries it builds
# (.goreleaser.yaml), with Dockerfile.release.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static (no cgo), reproducible (-trimpath), small (-s -w).
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/s3bulk ./cmd/s3bulk

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/s3bulk /usr/local/bin/s3bulk
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/s3bulk"]
