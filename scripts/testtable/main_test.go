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
		`{"Action":"output","Package":"p","Test":"TestG","Output":"    g_test.go:9: needs real AWS\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestG"}`,
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
	row, more, err := fold(strings.NewReader(in), "srv", "v1", "2026-12-01", "abc1234")
	if err != nil {
		t.Fatal(err)
	}
	// TestD failed after its one subtest passed; TestE through its
	// subtest (counted once); TestF never ended (a timeout).
	want := "| srv | v1 | 2 | 3 (2: server lacks UploadPartCopy (NotImplemented, status 501); 1: needs real AWS) | 5 | 2026-12-01 | abc1234 |"
	if row != want {
		t.Errorf("row:\n%s\nwant:\n%s", row, want)
	}
	// A skip that is no probe's is listed: a run should have none.
	if diff := cmp.Diff([]string{"FAIL p TestC", "FAIL p TestD", "FAIL p TestE/sub", "FAIL p TestF (did not finish)", "FAIL q (package)",
		"SKIP p TestG (not a capability probe): needs real AWS"}, more); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
}
