package export

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// A table deleted while its full export reads it takes its change history
// along: the export cannot undo the changes made after its time any more
// and would describe the table as it is now, not as it was. It ends FAILED
// with TableNotFoundException instead of COMPLETED with the wrong items.
func TestExportOfTableDeletedWhileReadFails(t *testing.T) {
	f := newFixture(t)
	tbl := f.table(t, "deleted", 3)
	p := f.params(tbl, "DYNAMODB_JSON")
	// The history's grain is the second: change the item in a later one.
	time.Sleep(time.Until(p.ExportTime.Truncate(time.Second).Add(1100 * time.Millisecond)))
	ctx := context.Background()
	changed := item.Item{"pk": item.S("k000000"), "v": item.N("100")}
	if err := f.store.Mutate(ctx, tbl, storage.Key{PK: item.EncodeKey(changed["pk"])}, func(item.Item) (item.Item, error) { return changed, nil }); err != nil {
		t.Fatal(err)
	}
	afterRead = func() {
		if err := f.store.DeleteTable(context.Background(), tbl.Account, tbl.Name); err != nil {
			panic(fmt.Sprint("deleting the table: ", err))
		}
	}
	defer func() { afterRead = func() {} }()
	x, err := f.svc.Start(ctx, storage.DefaultAccount, NewID(time.Now()), p)
	if err != nil {
		t.Fatal(err)
	}
	x = f.wait(t, x.ID)
	if x.Status() != "FAILED" || x.FailureCode != "TableNotFoundException" || x.FailureMessage != "table deleted was deleted during its export" {
		t.Fatalf("export of a table deleted while read: %s %s %q (%d items)", x.Status(), x.FailureCode, x.FailureMessage, x.ItemCount)
	}
}
