# Named contexts corpus (ctx): a stage `build` copying from the context `src`.
FROM taskc/base:bookworm AS build
COPY --from=src go.mod /src/go.mod
