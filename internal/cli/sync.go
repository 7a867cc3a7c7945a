package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/s3bulk/s3bulk/engine"
	"github.com/s3bulk/s3bulk/engine/diff"
	"github.com/s3bulk/s3bulk/store"
)

type syncFlags struct {
	raw                bool
	del                bool
	allowEmptySource   bool
	maxDelete          int64
	sizeOnly           bool
	checksum           bool
	compareTags        bool
	partSize           sizeFlag
	partConcurrency    int
	maxBuffer          sizeFlag
	multipartThreshold sizeFlag
	followSymlinks     bool
	sel                selectFlags
	meta               metaFlags
	obj                objectFlags
	from               fromFlags
}

func (a *app) syncCmd() *cobra.Command {
	var f syncFlags
	cmd := &cobra.Command{
		Use:   "sync SRC DST",
		Short: "Copy what differs from a prefix or directory to another; --delete removes what the source lacks",
		Long: `Make DST like SRC: S3 to S3 (server-side), local to S3, or S3 to local.

Keys are compared relative to each side's prefix. A key only the source has
is copied; a key both have is copied when the sizes differ or the source is
newer (--size-only: sizes only; --checksum: contents, by MD5 ETags, or by
reading local files of the same size). That holds for downloads too, as in
s5cmd; aws s3 sync instead downloads an object of the same size when the
local file is newer than it, and keeps a local file that is older.
Unchanged objects are not printed, only counted with the skipped in the
summary: a second sync of an unchanged tree costs only the two listings. Metadata flags apply to what is copied,
and so do the encryption, ACL, request-payer and source-region flags (see
cp --help).

--delete removes destination objects the source lacks, only after every copy
ended, in batches of 1,000 keys a request, and not at all when a copy failed
or when there would be more than --max-delete. A source that lists no object
while the destination has some deletes nothing and exits 2 (an unmounted
directory must not empty a bucket) unless --allow-empty-source. Objects a
filter leaves out are neither copied nor deleted (filters are those of cp,
the AWS CLI's). Folder markers (zero-byte keys ending in '/') are neither
copied nor deleted. A name a local source could not list (an
unreadable directory, a symlink not followed, a special file) is never
deleted at the destination: its source may exist.

Listings may come in any order (directory buckets and some S3-compatible
stores do not sort): they are compared on disk when needed, never whole in
memory.`,
		Example: `  s3bulk sync ./site s3://bucket/site/
  s3bulk sync --delete s3://src/data/ s3://dst/data/
  s3bulk sync --exclude '*.tmp' --size-only s3://bucket/photos/ ./photos`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runSync(cmd.Context(), args[0], args[1], &f)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.raw, "raw", false, "treat '*' and '?' in the locations as ordinary characters")
	fl.BoolVar(&f.del, "delete", false, "delete destination objects that the source lacks")
	fl.BoolVar(&f.allowEmptySource, "allow-empty-source", false, "with --delete, go on when the source lists no object at all (by default such a sync deletes nothing and fails: an unmounted directory must not empty a bucket)")
	fl.Int64Var(&f.maxDelete, "max-delete", 0, "with --delete, refuse to delete anything when more than this many objects would be (0: no limit)")
	fl.BoolVar(&f.sizeOnly, "size-only", false, "compare sizes only")
	fl.BoolVar(&f.compareTags, "compare-tags", false, "S3 to S3: objects otherwise the same are copied again when their tags differ (a GetObjectTagging of each side per pair)")
	fl.BoolVar(&f.checksum, "checksum", false, "compare contents: MD5 and multipart ETags, else the full-object CRC32C/CRC64NVME/SHA checksums S3 keeps (one HEAD per object; local files are read and hashed); says when it cannot")
	fl.Var(&f.partSize, "part-size", "part size for multipart transfers, e.g. 64MiB (default: chosen per object)")
	fl.Var(&f.multipartThreshold, "multipart-threshold", "size from which objects move in parts (default: chosen per kind of transfer)")
	fl.IntVar(&f.partConcurrency, "part-concurrency", 0, "part uploads in flight at once for the whole run (default: found by measuring, from 4 up to --concurrency)")
	fl.Var(&f.maxBuffer, "max-buffer", "most part bytes held in memory at once, run-wide, e.g. 256MiB (default 512MiB)")
	fl.BoolVar(&f.followSymlinks, "follow-symlinks", false, "follow symbolic links in local directories (loops are detected and skipped); by default links are skipped with a warning")
	f.sel.register(cmd, true)
	f.meta.register(cmd)
	f.obj.register(cmd)
	f.from.register(cmd)
	return cmd
}

func (a *app) runSync(ctx context.Context, srcArg, dstArg string, f *syncFlags) error {
	src, dst, err := parsePair(srcArg, dstArg, f.raw)
	if err != nil {
		return err
	}
	switch {
	case src.HasWildcard() || dst.HasWildcard():
		return usagef("sync %s %s: sync takes prefixes or directories, not wildcards (use --include and --exclude)", src, dst)
	case f.sizeOnly && f.checksum:
		return usagef("--size-only and --checksum: give one or the other")
	case f.maxDelete < 0:
		return usagef("--max-delete %d: must be 0 (no limit) or more", f.maxDelete)
	case f.maxDelete > 0 && !f.del:
		return usagef("--max-delete %d: only means something with --delete", f.maxDelete)
	case f.allowEmptySource && !f.del:
		return usagef("--allow-empty-source: only means something with --delete")
	case f.compareTags && !(src.IsS3() && dst.IsS3()):
		return usagef("--compare-tags: only for a sync from S3 to S3 (a local file has no tags)")
	}
	if err := checkPartFlags(f.partSize, f.partConcurrency); err != nil {
		return err
	}
	if err := f.from.check(src); err != nil {
		return err
	}
	if f.del && f.from.filesFrom != "" {
		return usagef("--delete with --files-from: a key list names what to copy, not what the source holds (an inventory does: --from-inventory)")
	}
	var opts engine.Options
	if err := f.sel.apply(&opts, a.env); err != nil {
		return err
	}
	if opts.Metadata, err = f.meta.options(); err != nil {
		return err
	}
	if err := f.meta.apply(&opts); err != nil {
		return err
	}
	if err := checkWritten(opts, dst); err != nil {
		return err
	}
	if f.compareTags && (opts.Tags != nil || opts.Props != engine.CopyPropsDefault) {
		return usagef("--compare-tags: copies would not carry the source's tags with --tags or --copy-props %s", opts.Props)
	}
	srcOpts, dstOpts, side, err := f.obj.stores(src, dst, a.env)
	if err != nil {
		return err
	}
	if src.Local {
		fi, err := os.Stat(filepath.FromSlash(src.Key))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("sync %s: no such directory", src)
		case err != nil:
			return fmt.Errorf("sync %s: %w", src, store.PathCause(err))
		case !fi.IsDir():
			return usagef("sync %s: not a directory (to copy one file use cp)", src)
		}
	}
	s, err := a.linkSession(f.followSymlinks)
	if err != nil {
		return err
	}
	srcEP, err := s.openSource(ctx, src, true, side, srcOpts)
	if err != nil {
		return err
	}
	from, closeFrom, err := f.from.open(ctx, a, s, src, srcEP, side, srcOpts)
	if err != nil {
		return err
	}
	defer closeFrom()
	dstEP, err := s.openDest(ctx, dst, true, dstOpts)
	if err != nil {
		return err
	}
	so := &engine.SyncOptions{Delete: f.del, MaxDelete: f.maxDelete, AllowEmptySource: f.allowEmptySource, CompareTags: f.compareTags}
	switch {
	case f.sizeOnly:
		so.Mode = diff.SizeOnly
	case f.checksum:
		so.Mode = diff.Checksum
	}
	opts.PartSize = int64(f.partSize)
	opts.PartStreams = f.partConcurrency
	opts.MaxBufferBytes = int64(f.maxBuffer)
	opts.MultipartThreshold = int64(f.multipartThreshold)
	job := engine.Job{Src: srcEP, Dst: dstEP, Recursive: true, Sync: so, From: from}
	err = a.execute(ctx, s, job, opts)
	var le *engine.DeleteLimitError
	var ee *engine.EmptySourceError
	switch {
	case errors.As(err, &le):
		return fmt.Errorf("sync %s %s: %w (--max-delete %d)", src, dst, err, f.maxDelete)
	case errors.As(err, &ee):
		return usagef("sync %s to %s: the source lists no object, so --delete would delete all %d at the destination: deleted none (--allow-empty-source to go on)", ee.Src, ee.Dst, ee.Count)
	}
	return err
}
