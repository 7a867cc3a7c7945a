package journal

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/store"
)

// Two versions of one source key, as a copy of every version journals them.
var (
	objV1 = store.Object{Key: "src/v", VersionID: "v1", Size: 3, ETag: "etag-1"}
	objV2 = store.Object{Key: "src/v", VersionID: "v2", Size: 4, ETag: "etag-2"}
)

func TestInterrupted(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	w1 := engine.VersionWrite{Src: objV1, DstKey: "dst/v", At: at}
	w2 := engine.VersionWrite{Src: objV2, DstKey: "dst/v", After: "d1", At: at.Add(time.Second)}
	marker := engine.VersionWrite{Src: store.Object{Key: "src/v", VersionID: "m3"}, DeleteMarker: true, DstKey: "dst/v", After: "d2", At: at}
	for _, tc := range []struct {
		name string
		run  func(w *Writer)
		want *engine.VersionWrite
	}{
		{"a write begun and not done is interrupted", func(w *Writer) {
			must(t, w.Intent(w1))
		}, &w1},
		{"a write done is not", func(w *Writer) {
			must(t, w.Intent(w1))
			must(t, w.Written(objV1, "dst/v", "d1"))
		}, nil},
		{"the key's next write begun is, with what it follows", func(w *Writer) {
			must(t, w.Intent(w1))
			must(t, w.Written(objV1, "dst/v", "d1"))
			must(t, w.Intent(w2))
		}, &w2},
		{"a delete marker's write is, as a marker", func(w *Writer) {
			must(t, w.Intent(marker))
		}, &marker},
		{"a failure does not say whether the write landed", func(w *Writer) {
			must(t, w.Intent(w1))
			must(t, w.Failed(objV1, "dst/v", errors.New("timeout")))
		}, &w1},
		{"a done record of another version does not close it", func(w *Writer) {
			must(t, w.Intent(w2))
			must(t, w.Written(objV1, "dst/v", "d1"))
		}, &w2},
		{"a done record without a destination version closes it", func(w *Writer) {
			must(t, w.Intent(w1))
			must(t, w.Done(objV1, "dst/v"))
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Load(write(t, tc.run))
			must(t, err)
			got, ok := st.Interrupted("dst/v")
			if tc.want == nil {
				if ok {
					t.Fatalf("Interrupted = %+v, want none", got)
				}
				return
			}
			if !ok {
				t.Fatal("Interrupted found none")
			}
			if diff := cmp.Diff(*tc.want, got); diff != "" {
				t.Errorf("Interrupted (-want +got):\n%s", diff)
			}
			if n := st.Stats().Interrupted; n != 1 {
				t.Errorf("Stats().Interrupted = %d, want 1", n)
			}
		})
	}
	t.Run("a version written is done, the next one not", func(t *testing.T) {
		st, err := Load(write(t, func(w *Writer) {
			must(t, w.Intent(w1))
			must(t, w.Written(objV1, "dst/v", "d1"))
		}))
		must(t, err)
		if !st.Done(objV1, "dst/v") || st.Done(objV2, "dst/v") {
			t.Errorf("Done(v1), Done(v2) = %t, %t; want true, false", st.Done(objV1, "dst/v"), st.Done(objV2, "dst/v"))
		}
	})
}

// TestIntentIsInTheFileWhenItReturns checks the promise a copy of every
// version writes on: once Intent returns, its record is in the file, where
// a kill of the process cannot take it back.
func TestIntentIsInTheFileWhenItReturns(t *testing.T) {
	write(t, func(w *Writer) {
		for i := range 300 {
			must(t, w.Done(objA, "dst/a")) // traffic queued ahead of it
			v := engine.VersionWrite{Src: objV1, DstKey: "dst/v", At: time.Now()}
			must(t, w.Intent(v))
			data, err := os.ReadFile(w.Path())
			must(t, err)
			if n := bytes.Count(data, []byte(`"t":"intent"`)); n != i+1 {
				t.Fatalf("after intent %d returned the file holds %d intents, want %d", i+1, n, i+1)
			}
		}
	})
}

func TestIntentAfterClose(t *testing.T) {
	path := write(t, func(*Writer) {})
	w, err := Open(path, fp)
	must(t, err)
	must(t, w.Close())
	if err := w.Intent(engine.VersionWrite{Src: objV1, DstKey: "dst/v"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Intent after Close = %v, want ErrClosed", err)
	}
}
