module hugeparam

go 1.25.1

require golang.org/x/tools v0.37.0
