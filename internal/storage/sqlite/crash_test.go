package sqlite

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// TestCrashKeepsAcknowledgedWrites runs a writer process, kills it with
// SIGKILL in the middle of a write load and checks that every write it
// acknowledged is in the database after reopening. Power loss is not
// simulated: see docs/adr/0001-sqlite-durability-and-group-commit.md.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, mode := range []string{"FULL", "NORMAL"} {
		t.Run(mode, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "crash.db")
			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$")
			cmd.Env = append(os.Environ(), "EXTENDDB_CRASH_DB="+path, "EXTENDDB_CRASH_SYNC="+mode)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var acked []string
			sc := bufio.NewScanner(out)
			var tableID string
			for sc.Scan() {
				line := sc.Text()
				if len(line) > 6 && line[:6] == "table " {
					tableID = line[6:]
					continue
				}
				if len(line) > 4 && line[:4] == "ack " {
					acked = append(acked, line[4:])
					if len(acked) == 2000 {
						cmd.Process.Kill()
						break
					}
				}
			}
			cmd.Wait()
			if len(acked) < 2000 {
				t.Fatalf("helper acknowledged only %d writes", len(acked))
			}
			b, err := Open(context.Background(), Options{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			tb, err := b.GetTable(context.Background(), "000000000001", "crash")
			if err != nil || tb.ID != tableID {
				t.Fatalf("table after crash: %+v, %v", tb, err)
			}
			for _, pk := range acked {
				it, err := b.GetItem(context.Background(), tb, storage.Key{PK: item.EncodeKey(item.S(pk))}, true)
				if err != nil || it == nil {
					t.Fatalf("acknowledged write %s lost after SIGKILL (%v)", pk, err)
				}
			}
		})
	}
}

// TestCrashHelper is the writer process of TestCrashKeepsAcknowledgedWrites.
func TestCrashHelper(t *testing.T) {
	path := os.Getenv("EXTENDDB_CRASH_DB")
	if path == "" {
		t.Skip("helper process only")
	}
	b, err := Open(context.Background(), Options{Path: path, Synchronous: os.Getenv("EXTENDDB_CRASH_SYNC")})
	if err != nil {
		t.Fatal(err)
	}
	tb := hashTable("crash")
	if err := b.CreateTable(context.Background(), tb); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	fmt.Printf("table %s\n", tb.ID)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				pk := fmt.Sprint(w, "-", i)
				err := b.Mutate(context.Background(), tb, storage.Key{PK: item.EncodeKey(item.S(pk))}, func(item.Item) (item.Item, error) {
					return item.Item{"pk": item.S(pk)}, nil
				})
				if err != nil {
					return
				}
				mu.Lock()
				fmt.Printf("ack %s\n", pk)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	time.Sleep(time.Minute)
}
