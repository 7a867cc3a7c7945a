package simregion

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// FuzzChunkedReader: any data encoded as aws-chunked in chunks of any
// size decodes to itself with its trailer; and no input, however
// malformed, makes the decoder panic, loop or pass on more bytes than the
// chunk sizes it read say.
func FuzzChunkedReader(f *testing.F) {
	f.Add([]byte("hello world"), uint16(4), []byte("b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n"))
	f.Add([]byte{}, uint16(1), []byte("0\r\n\r\n"))
	f.Add(bytes.Repeat([]byte{0xff}, 5000), uint16(1000), []byte("5;chunk-signature=x\r\nabcde\r\n0;chunk-signature=y\r\n\r\n"))
	f.Add([]byte("x"), uint16(0), []byte("ffffffffffffffff\r\n"))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16, raw []byte) {
		size := int(chunk)%4096 + 1
		var enc strings.Builder
		for rest := data; len(rest) > 0; {
			n := min(size, len(rest))
			fmt.Fprintf(&enc, "%x;chunk-signature=0\r\n%s\r\n", n, rest[:n])
			rest = rest[n:]
		}
		enc.WriteString("0\r\nx-amz-checksum-crc32:abc=\r\n\r\n")
		c := &chunkedReader{r: bufio.NewReader(strings.NewReader(enc.String()))}
		got, err := io.ReadAll(c)
		if err != nil || !bytes.Equal(got, data) || c.trailer["x-amz-checksum-crc32"] != "abc=" {
			t.Fatalf("decoded %d of %d bytes, trailer %v, error %v", len(got), len(data), c.trailer, err)
		}

		c = &chunkedReader{r: bufio.NewReader(bytes.NewReader(raw))}
		got, err = io.ReadAll(c)
		if len(got) > len(raw) {
			t.Fatalf("decoded %d bytes from %d", len(got), len(raw))
		}
		if err == nil && !c.done {
			t.Fatalf("a body ended without its last chunk decoded cleanly")
		}
	})
}
