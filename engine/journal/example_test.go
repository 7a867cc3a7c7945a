package journal_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/s3bulk/s3bulk/engine/journal"
	"github.com/s3bulk/s3bulk/store"
)

// A rerun of an interrupted job skips what the first run finished.
func Example() {
	dir, err := os.MkdirTemp("", "journal-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "job.journal")
	job := journal.Fingerprint("cp", "s3://src/logs/", "s3://dst/logs/", "recursive")
	listing := []store.Object{
		{Key: "logs/a", Size: 3, ETag: "e1"},
		{Key: "logs/b", Size: 5, ETag: "e2"},
	}

	// The first run copies logs/a, then is interrupted.
	w, err := journal.Open(path, job)
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Done(listing[0], "logs/a"); err != nil {
		log.Fatal(err)
	}
	w.Close()

	// The rerun asks the journal before every object.
	w, err = journal.Open(path, job)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	for _, o := range listing {
		if w.State().Done(o, o.Key) {
			fmt.Println("skip", o.Key)
			continue
		}
		fmt.Println("copy", o.Key)
		if err := w.Done(o, o.Key); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// skip logs/a
	// copy logs/b
}

// Load reads a journal without taking it: a report of a job can look at
// it while the job runs and holds it open.
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "journal-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "job.journal")
	job := journal.Fingerprint("cp", "s3://src/logs/", "s3://dst/logs/", "recursive")

	w, err := journal.Open(path, job)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	if err := w.Done(store.Object{Key: "logs/a", Size: 3, ETag: "e1"}, "logs/a"); err != nil {
		log.Fatal(err)
	}
	if err := w.Failed(store.Object{Key: "logs/b", Size: 5, ETag: "e2"}, "logs/b", errors.New("access denied")); err != nil {
		log.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}

	// The job still holds the journal: Open would fail with ErrLocked
	// (where the system has file locks); Load only reads it.
	st, err := journal.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("same job:", st.Fingerprint() == job)
	fmt.Printf("%+v\n", st.Stats())
	// Output:
	// same job: true
	// {Records:2 Done:1 Failed:1 Uploads:0 Interrupted:0}
}
