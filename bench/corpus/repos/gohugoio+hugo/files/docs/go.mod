module github.com/gohugoio/hugoDocs

go 1.26.0
