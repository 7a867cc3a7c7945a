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
		`{"Action":"fail","Package":"p"}`,
		`{"Action":"fail","Package":"q"}`,
		`not json: a build error`,
	}, "\n")
	row, more, err := fold(strings.NewReader(in), "srv", "v1")
	if err != nil {
		t.Fatal(err)
	}
	want := "| srv | v1 | 1 | 2 (2: server lacks UploadPartCopy (NotImplemented, status 501)) | 2 |"
	if row != want {
		t.Errorf("row:\n%s\nwant:\n%s", row, want)
	}
	if diff := cmp.Diff([]string{"FAIL p TestC", "FAIL q (package)"}, more); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
}
