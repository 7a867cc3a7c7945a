// Command s3bulk moves very many, or very large, objects into, out of and
// between S3 buckets. All logic lives in internal/cli and the engine; main
// only wires signals and exits once.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/s3bulk/s3bulk/internal/cli"
)

func main() {
	if os.Getenv("GOGC") == "" {
		tuneGC(nil) // gc.go
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// A second Ctrl-C exits at once: after the first one cancels ctx, stop()
	// restores default signal handling.
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := cli.Run(ctx, os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
