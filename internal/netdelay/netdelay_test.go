package netdelay

import (
	"bytes"
	"crypto/rand"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// echo answers every request with its body.
func echo(w http.ResponseWriter, r *http.Request) { io.Copy(w, r.Body) }

func relayTo(t *testing.T, h http.Handler, rtt time.Duration) (*Relay, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	r, err := Listen("127.0.0.1:0", strings.TrimPrefix(srv.URL, "http://"), rtt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, "http://" + r.Addr().String()
}

func TestEveryRoundTripTakesTheAddedRoundTrip(t *testing.T) {
	const rtt = 40 * time.Millisecond
	_, url := relayTo(t, http.HandlerFunc(echo), rtt)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	var took []time.Duration
	for i := 0; i < 3; i++ {
		start := time.Now()
		resp, err := client.Post(url, "text/plain", strings.NewReader("hello"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took = append(took, time.Since(start))
		if string(b) != "hello" {
			t.Fatalf("answer %q, want %q", b, "hello")
		}
	}
	// The first request opens the connection: the handshake's round trip
	// and its own. The others reuse it: one round trip each.
	if took[0] < 2*rtt {
		t.Errorf("first request took %v, want at least %v (handshake and request)", took[0], 2*rtt)
	}
	for i, d := range took[1:] {
		if d < rtt {
			t.Errorf("request %d on an open connection took %v, want at least %v", i+2, d, rtt)
		}
		if d >= 2*rtt+200*time.Millisecond {
			t.Errorf("request %d on an open connection took %v: it paid for a new connection", i+2, d)
		}
	}
}

func TestBytesArriveWholeAndInOrderBothWays(t *testing.T) {
	_, url := relayTo(t, http.HandlerFunc(echo), 2*time.Millisecond)
	body := make([]byte, 5<<20+17) // many chunks, the last a short one
	rand.Read(body)
	resp, err := http.Post(url, "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, body) {
		t.Fatalf("echoed %d bytes, not the %d sent", len(got), len(body))
	}
}

func TestAHalfCloseIsPassedOn(t *testing.T) {
	// A server that answers once it read to the end of its input.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		c.Write([]byte("read " + string(b)))
	}()
	r, err := Listen("127.0.0.1:0", ln.Addr().String(), time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := net.Dial("tcp", r.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("abc"))
	c.(*net.TCPConn).CloseWrite()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "read abc" {
		t.Fatalf("got %q, want %q", got, "read abc")
	}
}

func TestCloseCutsOpenConnections(t *testing.T) {
	r, url := relayTo(t, http.HandlerFunc(echo), time.Millisecond)
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(10 * time.Millisecond) // accepted and relayed
	done := make(chan error, 1)
	go func() { done <- r.Close() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for an open connection")
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("read from a connection of a closed relay: want an error")
	}
	if _, err := net.Dial("tcp", strings.TrimPrefix(url, "http://")); err == nil {
		t.Fatal("a closed relay accepted a connection")
	}
}

func TestNegativeRoundTripIsRefused(t *testing.T) {
	if _, err := Listen("127.0.0.1:0", "127.0.0.1:1", -time.Millisecond); err == nil {
		t.Fatal("Listen with a negative round trip: want an error")
	}
}
