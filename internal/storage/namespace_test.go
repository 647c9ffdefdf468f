package storage_test

import (
	"context"
	"slices"
	"testing"

	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

func TestNamespace(t *testing.T) {
	cases := []struct{ account, region, home, want string }{
		{"111122223333", "us-east-1", "us-east-1", "111122223333"},
		{"111122223333", "", "us-east-1", "111122223333"},
		{"111122223333", "eu-west-1", "us-east-1", "111122223333/eu-west-1"},
	}
	for _, c := range cases {
		ns := storage.Namespace(c.account, c.region, c.home)
		if ns != c.want || storage.NamespaceAccount(ns) != c.account {
			t.Errorf("%+v: got %q (account %q)", c, ns, storage.NamespaceAccount(ns))
		}
	}
}

// TestNamespacesListsEveryRegion: workers find the tables of every account
// and region on a real SQLite file, reserved namespaces excluded.
func TestNamespacesListsEveryRegion(t *testing.T) {
	ctx := context.Background()
	b, err := sqlite.Open(context.Background(), sqlite.Options{Path: t.TempDir() + "/db.sqlite"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i, ns := range []string{"111122223333/eu-west-1", "_iam", "444455556666"} {
		tbl := &storage.Table{Account: ns, Name: "T", ID: []string{"a1", "a2", "a3"}[i], Status: storage.StatusActive, BillingMode: "PAY_PER_REQUEST",
			KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
			AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}}}
		if err := b.CreateTable(ctx, tbl); err != nil {
			t.Fatal(err)
		}
	}
	got, err := storage.Namespaces(ctx, b, []string{"000000000000"})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"000000000000", "111122223333/eu-west-1", "444455556666"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
