module go.etcd.io/etcd/tests/v3/pkg

go 1.26

toolchain go1.26.6

require github.com/antithesishq/antithesis-sdk-go v0.7.2
