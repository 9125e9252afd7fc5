module github.com/stretchr/testify/_codegen

go 1.11
