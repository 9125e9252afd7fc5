module github.com/protocolbuffers/protobuf/examples/go

go 1.23

require google.golang.org/protobuf v1.36.9
