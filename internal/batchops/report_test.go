package batchops

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseResults(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []TaskResult
	}{
		{
			name: "a failed row in AWS's published order puts the status before the code",
			in:   "awsexamplebucket1,image_14975,,failed,200,PermanentFailure,\"Lambda returned function error: {\"\"errorMessage\"\":\"\"timed out\"\"}\"\n",
			want: []TaskResult{{Bucket: "awsexamplebucket1", Key: "image_14975", Status: "failed", HTTPStatus: 200, ErrorCode: "PermanentFailure", Message: `Lambda returned function error: {"errorMessage":"timed out"}`}},
		},
		{
			name: "a row in the schema's order puts the code before the status",
			in:   "b,k,,failed,NoSuchKey,404,The specified key does not exist.\n",
			want: []TaskResult{{Bucket: "b", Key: "k", Status: "failed", HTTPStatus: 404, ErrorCode: "NoSuchKey", Message: "The specified key does not exist."}},
		},
		{
			name: "a succeeded row has no error code",
			in:   "b,k,v1,succeeded,200,,Successful\n",
			want: []TaskResult{{Bucket: "b", Key: "k", VersionID: "v1", Status: "succeeded", HTTPStatus: 200, Message: "Successful"}},
		},
		{
			name: "keys are decoded, a plus being a space",
			in:   "b,a%2Bb/my+file%2C1%20%E6%97%A5.txt,,succeeded,200,,\n",
			want: []TaskResult{{Bucket: "b", Key: "a+b/my file,1 日.txt", Status: "succeeded", HTTPStatus: 200}},
		},
		{
			name: "a short row with only four fields is read",
			in:   "b,k,,succeeded\n",
			want: []TaskResult{{Bucket: "b", Key: "k", Status: "succeeded"}},
		},
		{
			name: "an empty file has no results",
			in:   "",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []TaskResult
			err := ParseResults(strings.NewReader(tt.in), func(r TaskResult) error {
				got = append(got, r)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseResultsReadsPastABrokenLine(t *testing.T) {
	const before, after = "b,before,,failed,404,NoSuchKey,gone\n", "b,after,,failed,403,AccessDenied,no\n"
	tests := []struct {
		name, bad  string
		unreadable string // what the unreadable result's message says
	}{
		{"a row with three fields", "b,k,\n", "line 2: 3 fields, want at least 4"},
		{"a key with a bad escape", "b,k%zz,,failed,404,NoSuchKey,\n", "line 2: decode key"},
		{"a stray quote in a field", "b,k,,failed,500,Internal\"Error,x\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var keys, bad []string
			err := ParseResults(strings.NewReader(before+tt.bad+after), func(r TaskResult) error {
				if r.Status == TaskUnreadable {
					bad = append(bad, r.Message)
					return nil
				}
				keys = append(keys, r.Key)
				return nil
			})
			if err != nil {
				t.Fatalf("ParseResults = %v, want the broken line reported and the rest read", err)
			}
			if !slices.Contains(keys, "before") || !slices.Contains(keys, "after") {
				t.Errorf("keys read = %q, want before and after the broken line", keys)
			}
			if tt.unreadable != "" && (len(bad) != 1 || !strings.Contains(bad[0], tt.unreadable)) {
				t.Errorf("unreadable = %q, want one saying %q", bad, tt.unreadable)
			}
		})
	}
}

func TestParseResultsStopsOnCallbackError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := ParseResults(strings.NewReader("b,1,,succeeded\nb,2,,succeeded\n"), func(TaskResult) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("ParseResults = %v after %d calls, want stop after 1", err, n)
	}
}

func TestReportManifestKey(t *testing.T) {
	tests := []struct{ name, prefix, want string }{
		{"no prefix puts the job at the bucket root", "", "job-42/manifest.json"},
		{"a prefix is joined with one slash", "_batch/report", "_batch/report/job-42/manifest.json"},
		{"a trailing slash is not doubled", "_batch/report/", "_batch/report/job-42/manifest.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReportManifestKey(tt.prefix, "42"); got != tt.want {
				t.Errorf("ReportManifestKey(%q) = %q, want %q", tt.prefix, got, tt.want)
			}
		})
	}
}

func FuzzParseResults(f *testing.F) {
	f.Add("b,k,,failed,404,NoSuchKey,msg\n")
	f.Add("b,k%20x,,succeeded,200,,\"a,\"\"b\"\"\"\n")
	f.Fuzz(func(t *testing.T, in string) {
		// Any input must give results or an error, never a panic, and a
		// decoded key must encode back to something that decodes to it.
		_ = ParseResults(strings.NewReader(in), func(r TaskResult) error {
			if back, err := DecodeKey(EncodeKey(r.Key)); err != nil || back != r.Key {
				t.Fatalf("key %q does not survive a round trip: %q, %v", r.Key, back, err)
			}
			return nil
		})
	})
}
