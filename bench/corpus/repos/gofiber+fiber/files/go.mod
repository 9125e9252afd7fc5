module github.com/gofiber/fiber/v3

go 1.25.0

require (
	github.com/gofiber/schema v1.8.4
	github.com/gofiber/utils/v2 v2.4.1
	github.com/google/uuid v1.6.0
	github.com/mattn/go-colorable v0.1.15
	github.com/mattn/go-isatty v0.0.24
	github.com/shamaton/msgpack/v3 v3.2.0
	github.com/stretchr/testify v1.12.1
	github.com/tinylib/msgp v1.6.4
	github.com/valyala/bytebufferpool v1.0.0
	github.com/valyala/fasthttp v1.73.0
	golang.org/x/crypto v0.55.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect

require (
	github.com/andybalholm/brotli v1.2.2 // indirect
	github.com/fxamacker/cbor/v2 v2.9.3 // direct
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/philhofer/fwd v1.2.0 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/net v0.58.0
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.41.0
)
