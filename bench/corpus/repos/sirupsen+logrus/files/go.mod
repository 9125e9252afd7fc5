module github.com/sirupsen/logrus

go 1.23

require (
	github.com/stretchr/testify v1.12.1
	golang.org/x/sys v0.13.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
