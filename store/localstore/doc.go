// Package localstore owns the local-directory implementation of store.Store:
// a directory tree seen as a bucket, its files as objects whose keys are paths
// relative to the root with '/' separators.
//
// Design decisions:
//
//   - Keys become paths only through SafeJoin, which refuses any key that could
//     name something outside the root ("..", absolute paths, drive letters,
//     backslashes, NUL) or that does not map one-to-one to a file ("a//b",
//     "a/./b", "dir/"). A bucket is untrusted input: a key is data, never a path.
//   - List walks one directory at a time and sorts each directory's entries
//     with a directory's name compared as name+"/", which yields the S3 byte
//     order of full keys ("a-b" < "a/b" < "a0") without holding the tree in
//     memory: only the entries of the directories on the current path are kept.
//   - Writes never show a partial file under the final name: Put and CreateTemp
//     write a temp file (".s3bulk-tmp-*") in the destination directory and
//     rename it over the final name. Listings skip these temp files.
//   - fsync is off by default (Options.Sync turns it on): like cp, aws s3 cp and
//     rclone, the rename makes a file appear whole, but surviving a power cut
//     costs a disk flush per file, which dominates copying many small files.
//   - Symlinks are not followed while listing unless Options.FollowSymlinks is
//     set; then loops are detected by the identity (device and inode) of the
//     directories on the current path. Head and Get of a named key follow a
//     symlink, as cat does. Symlinks already in a destination are written
//     through, as cp does: the keys of a bucket cannot create them.
//   - Local files have no ETag; computing one means reading the whole file, so
//     objects report none and a conditional Get is refused.
package localstore
