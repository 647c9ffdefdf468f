package export

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// Requests with one ClientToken and the same parameters arriving together
// make one export, which every one of them returns.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExportTableToPointInTime.html#DDB-ExportTableToPointInTime-request-ClientToken
func TestStartClientTokenConcurrent(t *testing.T) {
	f := newFixture(t)
	tbl := f.table(t, "tokc", 1)
	for round := range 5 {
		p := f.params(tbl, "DYNAMODB_JSON")
		ids := make([]string, 4)
		errs := make([]error, 4)
		var wg sync.WaitGroup
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				q := *p
				x, err := f.svc.Start(context.Background(), storage.DefaultAccount, NewID(time.Now()), &q)
				if err == nil {
					ids[i] = x.ID
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i := range ids {
			if errs[i] != nil || ids[i] != ids[0] {
				t.Fatalf("round %d: concurrent starts with one token: %v / %v, want one export", round, ids, errs)
			}
		}
		f.wait(t, ids[0])
	}
}
