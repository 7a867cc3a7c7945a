package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/s3url"
	"github.com/s3bulk/s3bulk/store/localstore"
)

// PutStream writes a stream of unknown length, here into a local
// directory; into an S3 bucket, a stream longer than one part becomes a
// multipart upload with bounded memory.
func ExamplePutStream() {
	dir, _ := os.MkdirTemp("", "putstream-")
	defer os.RemoveAll(dir)
	st, _ := localstore.New(dir, localstore.Options{})
	dst := engine.Endpoint{Store: st, Loc: s3url.Location{Local: true}}

	res, err := engine.PutStream(context.Background(), strings.NewReader("hello, world\n"), "-", dst, "greeting.txt", engine.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(filepath.Join(dir, "greeting.txt"))
	fmt.Printf("%s: %d bytes, %d parts: %s", res.Status, res.Task.Size, res.Parts, b)
	// Output: done: 13 bytes, 0 parts: hello, world
}
