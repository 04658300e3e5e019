# One image for every process of the service: edge, worker, ingest and mcp (docker-compose.yml).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/shariah ./cmd/shariah

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/shariah /usr/local/bin/shariah
# The usage spool (usage events on their way to ClickHouse) needs a writable directory that outlives
# the container: docker-compose.yml mounts a volume here.
ENV SHARIAH_USAGE_SPOOL_DIR=/home/nonroot/usage-spool
EXPOSE 8000 8001
ENTRYPOINT ["/usr/local/bin/shariah"]
CMD ["serve"]
