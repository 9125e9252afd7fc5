module gohugoio/hugo/internal/warpc/genavif

go 1.21
