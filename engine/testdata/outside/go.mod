// A Go program outside the s3bulk module that uses its engine: the test
// TestAProgramOutsideTheModuleUsesTheEngine (engine/outside_test.go) builds
// and runs it. It may import only s3bulk's public packages; if the API
// ever needs an internal one, this module stops compiling.
module example.com/outside

go 1.26.8

require github.com/s3bulk/s3bulk v0.0.0

replace github.com/s3bulk/s3bulk => ../../..
