package backup

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// A backup whose manifest was edited fails its restore, and the table it
// was filling is deleted: a data file named outside the backup's
// directory is not read (even with its checksum), and a data file holding
// another number of items than the manifest says is refused.
func TestTamperedManifestFailsRestore(t *testing.T) {
	f := newFixture(t)
	src := f.table(t, "src", 30)
	b := f.backup(t, src)
	dir := filepath.Join(f.root, src.Account, b.ID)
	original, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(m *Manifest){
		"outside": func(m *Manifest) {
			// The same bytes, at a path outside the backup.
			raw, err := os.ReadFile(filepath.Join(dir, m.Files[0].Path))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(f.root, "outside.json.gz"), raw, 0o644); err != nil {
				t.Fatal(err)
			}
			m.Files[0].Path = "../../outside.json.gz"
		},
		"count": func(m *Manifest) { m.Files[0].ItemCount += 5; m.ItemCount += 5 },
	} {
		t.Run(name, func(t *testing.T) {
			var m Manifest
			if err := json.Unmarshal(original, &m); err != nil {
				t.Fatal(err)
			}
			edit(&m)
			raw, _ := json.Marshal(&m)
			if err := os.WriteFile(filepath.Join(dir, "manifest.json"), raw, 0o644); err != nil {
				t.Fatal(err)
			}
			_, j := f.restore(t, b, "r_"+name)
			if j.State != jobs.Failed || !strings.Contains(j.Error, map[string]string{"outside": "not inside the backup", "count": "manifest says"}[name]) {
				t.Fatalf("restore from a manifest edited (%s): %s %q", name, j.State, j.Error)
			}
			if _, err := f.store.GetTable(context.Background(), src.Account, "r_"+name); !errors.Is(err, storage.ErrTableNotFound) {
				t.Fatalf("table of the failed restore: %v, want it deleted", err)
			}
		})
	}
}
