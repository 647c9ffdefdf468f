package importer

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/storage"
)

// Two ImportTable requests with one ClientToken and the same parameters
// arriving together are one import: both return it, neither answers that
// the table exists. "If you submit a request with the same client token
// [...] within the 8-hour idempotency window, DynamoDB returns" the same
// import.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTable.html#DDB-ImportTable-request-ClientToken
func TestClientTokenConcurrentStarts(t *testing.T) {
	f := newFixture(t)
	f.gzipLines(t, "b", "data.json.gz", 3)
	for round := range 5 {
		name := "tok" + uuid.NewString()[:8]
		at := time.Now()
		p := Params{ClientToken: "tok-" + name, ImportArn: "arn:" + name, Source: Source{S3Bucket: "b"},
			InputFormat: "DYNAMODB_JSON", Compression: "GZIP", StartTime: at,
			Table: storage.Table{Name: name, ID: uuid.NewString(), BillingMode: "PAY_PER_REQUEST", CreatedAt: at,
				KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
				AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}}}}
		var wg sync.WaitGroup
		ids := make([]string, 4)
		errs := make([]error, 4)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				q := p
				q.Table.ID = uuid.NewString() // each request makes its own table ID
				im, err := f.svc.Start(context.Background(), storage.DefaultAccount, uuid.NewString(), q)
				if err == nil {
					ids[i] = im.ID
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i := range ids {
			if errs[i] != nil || ids[i] != ids[0] {
				t.Fatalf("round %d: concurrent starts with one token: %v / %v, want one import", round, ids, errs)
			}
		}
	}
}
