package cli

// The engine's part of integrity: a multipart upload carries the CRC32C of
// the whole file (store.ChecksumMultipart), and a download in parts is
// checked against the object's full-object checksum before it is renamed
// (store.Verifier).

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"

	"github.com/s3bulk/s3bulk/internal/s3test"
)

func TestAMultipartUploadCarriesTheCRC32COfTheFile(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	body := stamped(15*mib + 1)
	file := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, srv, append(append([]string{"cp"}, partFlags...), file, "s3://"+bucket+"/big.bin")...)
	out, err := srv.Client(t).HeadObject(t.Context(), &s3.HeadObjectInput{
		Bucket: aws.String(bucket), Key: aws.String("big.bin"), ChecksumMode: s3types.ChecksumModeEnabled,
	})
	if err != nil {
		t.Fatal(err)
	}
	sum := binary.BigEndian.AppendUint32(nil, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	want := []string{base64.StdEncoding.EncodeToString(sum), "FULL_OBJECT"}
	if diff := cmp.Diff(want, []string{aws.ToString(out.ChecksumCRC32C), string(out.ChecksumType)}); diff != "" {
		t.Errorf("the object's CRC32C and checksum type (-want +got):\n%s", diff)
	}
}

func TestACorruptedDownloadInPartsFailsAndLeavesNoFile(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	body := stamped(15*mib + 1)
	s3test.PutObject(t, srv.Client(t), bucket, "big.bin", body)
	// A bit of the second part flips on its way.
	endpoint := corruptingServer(t, srv, 7*mib)
	dir := t.TempDir()
	args := append([]string{"--endpoint-url", endpoint, "cp"}, partFlags...)
	_, errOut, code := runCLI(t, srv, append(args, "s3://"+bucket+"/big.bin", dir+"/")...)
	if code != ExitPartial {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitPartial, tail(errOut, 10))
	}
	if !strings.Contains(errOut, "checksum mismatch") {
		t.Errorf("stderr does not name the mismatch:\n%s", tail(errOut, 10))
	}
	if files := readFiles(t, dir); len(files) != 0 {
		got := []byte(files["big.bin"])
		t.Errorf("files left in the destination: %v (the corrupted one: %t)", keys(files), len(got) == len(body) && !bytes.Equal(got, body))
	}
}
