package bench

import (
	"path/filepath"
	"testing"

	"github.com/s3bulk/s3bulk/internal/testfs"
)

func TestDemoWritesOutsideTheSourceTree(t *testing.T) {
	root := t.TempDir()
	testfs.Write(t, root, map[string]string{
		"clone/go.mod":          "module " + modulePath + "\n\ngo 1.26\n",
		"clone/cmd/s3bulk/x.go": "package main",
		"other/go.mod":          "module example.com/other\n",
	})
	tmp := filepath.Join(root, "tmp")
	tests := []struct{ name, cwd, want string }{
		{"at the root of a clone: the temp directory", filepath.Join(root, "clone"), filepath.Join(tmp, "s3bulk-demo")},
		{"below the root of a clone: the temp directory", filepath.Join(root, "clone", "cmd", "s3bulk"), filepath.Join(tmp, "s3bulk-demo")},
		{"in another module: here", filepath.Join(root, "other"), filepath.Join(root, "other", "s3bulk-demo")},
		{"anywhere else: here", root, filepath.Join(root, "s3bulk-demo")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DefaultDemoOut(tt.cwd, tmp); got != tt.want {
				t.Errorf("DefaultDemoOut(%s) = %s, want %s", tt.cwd, got, tt.want)
			}
		})
	}
}
