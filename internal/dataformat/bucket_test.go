package dataformat

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// TestClaimBucketOneOwner: of several accounts claiming one bucket at
// once, exactly one owns it; the owner claims it again, and an unowned
// bucket is open to a check by any account.
func TestClaimBucketOneOwner(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bucket")
	if err := CheckBucketOwner(dir, "111111111111"); err != nil {
		t.Fatalf("unowned bucket: %v", err)
	}
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = ClaimBucket(dir, fmt.Sprintf("%012d", i))
		}()
	}
	wg.Wait()
	owner := -1
	for i, err := range errs {
		switch {
		case err == nil && owner >= 0:
			t.Fatalf("accounts %d and %d both own the bucket", owner, i)
		case err == nil:
			owner = i
		case !errors.Is(err, ErrBucketAccessDenied):
			t.Fatalf("account %d: %v", i, err)
		}
	}
	if owner < 0 {
		t.Fatal("no account owns the bucket")
	}
	if err := ClaimBucket(dir, fmt.Sprintf("%012d", owner)); err != nil {
		t.Fatalf("the owner claims again: %v", err)
	}
	if err := CheckBucketOwner(dir, "999999999999"); !errors.Is(err, ErrBucketAccessDenied) {
		t.Fatalf("another account's check: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, BucketOwnerFile+".tmp-*")); len(m) != 0 {
		t.Fatalf("temporary files left: %v", m)
	}
}
