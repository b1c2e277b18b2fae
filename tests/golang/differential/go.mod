module vaplsp/golangdiff

go 1.19
