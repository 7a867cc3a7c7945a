package journal

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/store"
)

// FuzzDecode feeds arbitrary bytes to the decoder: it never panics, and
// whatever it accepts behaves like a journal cut short by a crash would.
func FuzzDecode(f *testing.F) {
	f.Add(journalBytes(f))
	f.Add(allKinds(f))
	f.Add([]byte{})
	f.Add([]byte(`{"format":"s3bulk-journal",`))
	f.Add(append(journalBytes(f), 0, 0, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, data)
		// Random bytes rarely pass a CRC; with every line's CRC made right,
		// the JSON and the records behind it are fuzzed too.
		checkDecode(t, reseal(data))
	})
}

// reseal gives every line of data a correct CRC field.
func reseal(data []byte) []byte {
	var out []byte
	for l := range bytes.SplitAfterSeq(data, []byte("\n")) {
		nl := bytes.HasSuffix(l, []byte("\n"))
		body := bytes.TrimSuffix(l, []byte("\n"))
		switch {
		case len(body) >= crcLen && bytes.HasPrefix(body[len(body)-crcLen:], []byte(crcPrefix)):
			body = body[:len(body)-crcLen]
		case bytes.HasSuffix(body, []byte("}")):
			body = body[:len(body)-1]
		}
		out = append(out, body...)
		out = fmt.Appendf(out, "%s%08x\"}", crcPrefix, crc32.Checksum(body, castagnoli))
		if nl {
			out = append(out, '\n')
		}
	}
	return out
}

func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	st, end, err := decode(bytes.NewReader(data))
	if err != nil {
		if st != nil {
			t.Fatal("decode returned a state with an error")
		}
		return
	}
	if end < 0 || end > int64(len(data)) {
		t.Fatalf("end = %d outside [0, %d]", end, len(data))
	}
	// What Open keeps, the file up to end, reads back the same and clean.
	kept, _, err := decode(bytes.NewReader(data[:end]))
	if err != nil {
		t.Fatalf("the kept part does not decode: %v", err)
	}
	if len(kept.Notes()) != 0 {
		t.Errorf("the kept part has notes: %q", kept.Notes())
	}
	if diff := gocmp.Diff(st, kept, stateCmp...); diff != "" {
		t.Errorf("the kept part decodes differently (-all +kept):\n%s", diff)
	}
	// A crash can cut the file anywhere: every prefix of a good journal
	// is a good journal.
	cut := int64(len(data)) * 7 / 13
	if cut < end {
		if _, _, err := decode(bytes.NewReader(data[:cut])); err != nil {
			t.Errorf("the journal cut at %d does not decode: %v", cut, err)
		}
	}
}

var stateCmp = []gocmp.Option{
	gocmp.AllowUnexported(State{}, entry{}),
	cmpopts.IgnoreFields(State{}, "notes"),
	cmpopts.EquateEmpty(),
}

// allKinds is a journal with one record of every kind.
func allKinds(t testing.TB) []byte {
	return readFile(t, write(t, func(w *Writer) {
		must(t, w.Done(objL, "d/l"))
		must(t, w.Failed(objB, "d/b", errors.New("boom")))
		must(t, w.UploadStarted(big))
		must(t, w.PartDone(big.UploadID, store.Part{Number: 2, ETag: "e", Size: 3}))
		must(t, w.UploadCompleted(big.DstKey, big.UploadID))
		must(t, w.UploadAborted(big.DstKey, big.UploadID))
		must(t, w.Intent(engine.VersionWrite{Src: objV1, DstKey: "d/v", At: mtime}))
		must(t, w.Written(objV1, "d/v", "dst-1"))
		must(t, w.Intent(engine.VersionWrite{Src: objV2, DeleteMarker: true, DstKey: "d/v", After: "dst-1", At: mtime}))
	}))
}

// FuzzRoundTrip drives a Writer with a sequence of operations taken from
// the input and checks that the journal reads back as a simple model of
// the same operations says it should.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 0, 5, 2, 1, 3, 0, 3, 1, 4, 0})
	f.Add([]byte{2, 0, 2, 0, 3, 1, 5, 0, 3, 0, 0, 7})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 200 {
			ops = ops[:200]
		}
		// Few keys and versions, so operations hit the same objects.
		keys := []string{"a", "b/c", "caf\xe9", "d\n\"e"}
		object := func(b byte) store.Object {
			o := store.Object{Key: keys[b%4], Size: int64(b / 8 % 2)}
			if b/4%2 == 0 {
				o.ETag = fmt.Sprint("etag", b/16%2)
			} else {
				o.ModTime = time.Unix(int64(b/16%2), 5)
			}
			return o
		}
		dst := func(b byte) string { return "dst/" + keys[b%4] }

		type modelUpload struct {
			Upload
			closed bool
		}
		last := map[string]*store.Object{} // by src+dst; nil when failed
		var uploads []*modelUpload
		path := write(t, func(w *Writer) {
			for i := 0; i+1 < len(ops); i += 2 {
				op, arg := ops[i]%6, ops[i+1]
				switch op {
				case 0:
					o := object(arg)
					must(t, w.Done(o, dst(arg)))
					last[o.Key+"\x00"+dst(arg)] = &o
				case 1:
					o := object(arg)
					must(t, w.Failed(o, dst(arg), errors.New("x")))
					last[o.Key+"\x00"+dst(arg)] = nil
				case 2:
					o := object(arg)
					u := Upload{SrcKey: o.Key, DstKey: dst(arg), UploadID: fmt.Sprint("u", len(uploads)),
						PartSize: 5 << 20, Size: o.Size, ETag: o.ETag, ModTime: o.ModTime.UTC()}
					must(t, w.UploadStarted(u))
					u.Parts = map[int32]store.Part{}
					uploads = append(uploads, &modelUpload{Upload: u})
				case 3, 4, 5:
					if len(uploads) == 0 {
						continue
					}
					u := uploads[int(arg)%len(uploads)]
					switch op {
					case 3:
						p := store.Part{Number: int32(arg%3) + 1, ETag: fmt.Sprint("p", arg), Size: int64(arg)}
						must(t, w.PartDone(u.UploadID, p))
						if !u.closed {
							u.Parts[p.Number] = p
						}
					case 4:
						must(t, w.UploadCompleted(u.DstKey, u.UploadID))
						u.closed, u.Parts = true, nil
					case 5:
						must(t, w.UploadAborted(u.DstKey, u.UploadID))
						u.closed, u.Parts = true, nil
					}
				}
			}
		})
		st, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for b := range 32 {
			o := object(byte(b))
			want := false
			if l := last[o.Key+"\x00"+dst(byte(b))]; l != nil {
				want = version(l.Size, l.ETag, l.ModTime) == version(o.Size, o.ETag, o.ModTime)
			}
			if got := st.Done(o, dst(byte(b))); got != want {
				t.Errorf("Done(%+v, %q) = %v, want %v", o, dst(byte(b)), got, want)
			}
		}
		var open []Upload
		latest := map[string]Upload{}
		for _, u := range uploads {
			if !u.closed {
				open = append(open, u.Upload)
				latest[u.DstKey] = u.Upload
			}
		}
		slices.SortFunc(open, func(a, b Upload) int {
			return cmp.Or(cmp.Compare(a.DstKey, b.DstKey), cmp.Compare(a.UploadID, b.UploadID))
		})
		if diff := gocmp.Diff(open, st.Uploads(), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Uploads() (-model +journal):\n%s", diff)
		}
		for _, k := range keys {
			want, wantOK := latest["dst/"+k]
			got, ok := st.Upload("dst/" + k)
			if ok != wantOK || gocmp.Diff(want, got, cmpopts.EquateEmpty()) != "" {
				t.Errorf("Upload(%q) = %+v, %v; want %+v, %v", "dst/"+k, got, ok, want, wantOK)
			}
		}
	})
}
