# dbarena's container image: the static binary (CGO_ENABLED=0; SQLite is
# modernc.org's pure Go) on distroless, which holds CA certificates, time
# zones, /tmp and the user nonroot (65532) and nothing else: no shell.
# The pods of `dbarena k8s job` run it as that user with a read-only root.
#
#   docker build --build-arg COMMIT=$(git rev-parse --short=12 HEAD) -t REGISTRY/dbarena:TAG .
#   docker push REGISTRY/dbarena:TAG

FROM golang:1.26 AS build
WORKDIR /src
# The modules first: a change to the source reuses this layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The commit for dbarena --version (.git is not copied in):
# docker build --build-arg COMMIT=$(git rev-parse --short=12 HEAD) .
ARG COMMIT=
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.stampedCommit=${COMMIT}" -o /out/dbarena ./cmd/dbarena

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/dbarena /dbarena
USER 65532:65532
ENTRYPOINT ["/dbarena"]
