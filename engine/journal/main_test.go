package journal

import (
	"bufio"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/store"
)

// childEnv names the journal a re-executed test binary writes until it is
// killed (see TestKilled).
const childEnv = "S3BULK_JOURNAL_CHILD"

// childVersionsEnv names the journal a re-executed test binary writes
// version intents and done records to until it is killed (see
// TestKilledBetweenIntentAndDone).
const childVersionsEnv = "S3BULK_JOURNAL_VERSIONS_CHILD"

func TestMain(m *testing.M) {
	for env, fn := range map[string]func(string) error{childEnv: child, childVersionsEnv: childVersions} {
		if path := os.Getenv(env); path != "" {
			if err := fn(path); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

// childVersions copies versions as the engine journals them, one after
// the other: an intent, a line on stdout saying that the write begins,
// the done record; until killed.
func childVersions(path string) error {
	w, err := Open(path, fp)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; i < 10_000_000; i++ {
		v := childVersion(i)
		if err := w.Intent(engine.VersionWrite{Src: v, DstKey: v.Key, At: time.Now()}); err != nil {
			return err
		}
		fmt.Fprintln(out, "writing", i)
		if err := out.Flush(); err != nil {
			return err
		}
		if err := w.Written(v, v.Key, fmt.Sprint("d", i)); err != nil {
			return err
		}
	}
	return w.Close()
}

func childVersion(i int) store.Object {
	return store.Object{Key: fmt.Sprint("k/", i), VersionID: "v", Size: int64(i), ETag: "e"}
}

// child appends done records, in order, until killed, saying on stdout
// after every thousand that they are flushed.
func child(path string) error {
	w, err := Open(path, fp)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	must := func(err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	must(w.UploadStarted(big))
	for i := 0; i < 10_000_000; i++ {
		must(w.Done(childObject(i), "dst"))
		if i%3 == 0 {
			must(w.PartDone(big.UploadID, store.Part{Number: int32(i%10000) + 1, ETag: "e", Size: 1}))
		}
		if (i+1)%1000 == 0 {
			must(w.Flush())
			fmt.Fprintln(out, "flushed", i+1)
			must(out.Flush())
		}
	}
	return w.Close()
}

func childObject(i int) store.Object {
	return store.Object{Key: fmt.Sprint("src/", i), Size: int64(i), ETag: "e"}
}
