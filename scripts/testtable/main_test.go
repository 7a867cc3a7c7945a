package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFoldCountsLeafTestsAndSkipReasons(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"run","Package":"p","Test":"TestA/one"}`,
		`{"Action":"pass","Package":"p","Test":"TestA/one"}`,
		`{"Action":"run","Package":"p","Test":"TestA/two"}`,
		`{"Action":"output","Package":"p","Test":"TestA/two","Output":"=== RUN   TestA/two\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA/two","Output":"    a_test.go:12: server lacks UploadPartCopy (NotImplemented, status 501)\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA/two","Output":"--- SKIP: TestA/two (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestA/two"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: server lacks UploadPartCopy (NotImplemented, status 501)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestB"}`,
		`{"Action":"fail","Package":"p","Test":"TestC"}`,
		`{"Action":"run","Package":"p","Test":"TestD"}`,
		`{"Action":"run","Package":"p","Test":"TestD/sub"}`,
		`{"Action":"pass","Package":"p","Test":"TestD/sub"}`,
		`{"Action":"fail","Package":"p","Test":"TestD"}`,
		`{"Action":"run","Package":"p","Test":"TestE"}`,
		`{"Action":"run","Package":"p","Test":"TestE/sub"}`,
		`{"Action":"fail","Package":"p","Test":"TestE/sub"}`,
		`{"Action":"fail","Package":"p","Test":"TestE"}`,
		`{"Action":"run","Package":"p","Test":"TestF"}`,
		`{"Action":"fail","Package":"p"}`,
		`{"Action":"fail","Package":"q"}`,
		`not json: a build error`,
	}, "\n")
	row, more, err := fold(strings.NewReader(in), "srv", "v1")
	if err != nil {
		t.Fatal(err)
	}
	// TestD failed after its one subtest passed; TestE through its
	// subtest (counted once); TestF never ended (a timeout).
	want := "| srv | v1 | 2 | 2 (2: server lacks UploadPartCopy (NotImplemented, status 501)) | 5 |"
	if row != want {
		t.Errorf("row:\n%s\nwant:\n%s", row, want)
	}
	if diff := cmp.Diff([]string{"FAIL p TestC", "FAIL p TestD", "FAIL p TestE/sub", "FAIL p TestF (did not finish)", "FAIL q (package)"}, more); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
}
