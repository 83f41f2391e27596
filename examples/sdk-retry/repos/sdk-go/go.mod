module github.com/example-org/acme-go

go 1.19
