package gateway

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestChildDiesWithItsParent(t *testing.T) {
	spawner := childCmd(t.TempDir(), "spawner")
	out, err := spawner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := spawner.Start(); err != nil {
		t.Fatal(err)
	}
	reap(t, spawner)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		spawner.Process.Kill()
		spawner.Wait()
		t.Fatalf("read the grandchild's endpoint: %v", err)
	}
	addr := strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(line, EndpointPrefix)), "http://")

	if err := spawner.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	spawner.Wait()

	// The kernel delivers the death signal asynchronously; wait for the
	// grandchild's port to close, bounded by the test's deadline.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for {
		c, err := net.Dial("tcp", addr)
		if errors.Is(err, syscall.ECONNREFUSED) {
			return
		}
		if err == nil {
			c.Close()
		}
		select {
		case <-ctx.Done():
			t.Fatalf("gateway at %s still accepts connections after its parent was killed", addr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
