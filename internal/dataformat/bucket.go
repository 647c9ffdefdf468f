package dataformat

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// BucketOwnerFile is the file of a bucket's directory that names the
// account owning the bucket: the first account that exported into it. An
// S3 bucket belongs to one account, and an export or import of another
// account is refused access to it; here the buckets are directories of the
// export root that every account of a server shares, and this file keeps
// them apart. Imports skip it.
const BucketOwnerFile = ".extenddb-bucket-owner"

// HoldsNoItems reports whether a file of that name in a bucket holds no
// items whatever its prefix: a manifest or marker of the export layout,
// or the bucket's owner file. An import skips such files.
func HoldsNoItems(name string) bool { return noItems[name] }

var noItems = map[string]bool{
	StartedFile: true, ManifestSummaryFile: true, ManifestSummaryChecksumFile: true,
	ManifestFilesFile: true, ManifestFilesChecksumFile: true, BucketOwnerFile: true,
}

// ErrBucketAccessDenied is the error of an export or import of an account
// into or from a bucket another account owns.
var ErrBucketAccessDenied = errors.New("the bucket belongs to another account")

// ClaimBucket makes account the owner of the bucket directory dir (made
// if it is missing) unless it has an owner. Errors: ErrBucketAccessDenied
// when another account owns it, or the filesystem's.
func ClaimBucket(dir, account string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, BucketOwnerFile+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(account)
	if err := errors.Join(werr, tmp.Close()); err != nil {
		return err
	}
	// A link fails when the owner file exists, so of two accounts
	// claiming a bucket at once exactly one becomes its owner, and the
	// file is never seen half written.
	if err := os.Link(tmp.Name(), filepath.Join(dir, BucketOwnerFile)); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return CheckBucketOwner(dir, account)
}

// CheckBucketOwner returns nil when the bucket directory dir has no owner
// (made by hand, or by a copy such as extenddb import's) or account owns
// it. Errors: ErrBucketAccessDenied, or the filesystem's.
func CheckBucketOwner(dir, account string) error {
	b, err := os.ReadFile(filepath.Join(dir, BucketOwnerFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the bucket's owner: %w", err)
	}
	if string(b) != account {
		return ErrBucketAccessDenied
	}
	return nil
}
