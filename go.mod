module github.com/pipebench/pipebench

go 1.26.8

require (
	golang.org/x/sys v0.50.0
	gonum.org/v1/gonum v0.17.0
)
