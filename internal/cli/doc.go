// Package cli owns s3bulk's command line: one file per verb that reads its
// flags into options, makes one engine (or batchops, bench) call, picks the
// renderers of internal/progress and maps the outcome to an exit code. It is
// the only package that knows os.Args, terminals, the environment and exit
// codes, and it reads all of them from what Run is given (Stdio, args), never
// from the process, so that a Go program or a test can run many command lines
// side by side.
package cli
