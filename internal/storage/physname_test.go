package storage

import "testing"

// The physical tables both SQL backends create: one layout, the dialect's
// types (TestSQLTypesDDL).
func TestSQLTypesDDL(t *testing.T) {
	ty := SQLTypes{Hash: "bigint", Size: "integer", Bytes: "bytea", EmptyBytes: "''"}
	wantItems := "CREATE TABLE IF NOT EXISTS t_1 (\n" +
		"\th    bigint NOT NULL,\n" +
		"\tpk   bytea NOT NULL,\n" +
		"\tsk   bytea NOT NULL DEFAULT '',\n" +
		"\titem bytea NOT NULL,\n" +
		"\tsize integer NOT NULL,\n" +
		"\tPRIMARY KEY (h, pk, sk)\n)"
	if got := ty.ItemsDDL("t_1"); got != wantItems {
		t.Errorf("ItemsDDL:\n%s\nwant\n%s", got, wantItems)
	}
	wantIndex := "CREATE TABLE IF NOT EXISTS i_1 (\n" +
		"\th    bigint NOT NULL,\n" +
		"\tipk  bytea NOT NULL,\n" +
		"\tisk  bytea NOT NULL DEFAULT '',\n" +
		"\tpk   bytea NOT NULL,\n" +
		"\tsk   bytea NOT NULL DEFAULT '',\n" +
		"\titem bytea NOT NULL,\n" +
		"\tsize integer NOT NULL,\n" +
		"\tPRIMARY KEY (h, ipk, isk, pk, sk)\n)"
	if got := ty.IndexDDL("i_1"); got != wantIndex {
		t.Errorf("IndexDDL:\n%s\nwant\n%s", got, wantIndex)
	}
}

// The row statements of an index table, in either dialect's placeholders
// (TestSQLIndexTables).
func TestSQLIndexTables(t *testing.T) {
	tbl := &Table{Indexes: []Index{{IndexName: "byA", ID: "0a0b"}}}
	dollar := func(n int) string { return "$" + string(rune('0'+n)) }
	got, err := SQLIndexTables(tbl, dollar)
	if err != nil {
		t.Fatal(err)
	}
	want := SQLIndexTable{
		Name: "i_0a0b",
		Put: "INSERT INTO i_0a0b (h, ipk, isk, pk, sk, item, size) VALUES ($1, $2, $3, $4, $5, $6, $7)" +
			" ON CONFLICT (h, ipk, isk, pk, sk) DO UPDATE SET item = excluded.item, size = excluded.size",
		Del: "DELETE FROM i_0a0b WHERE h = $1 AND ipk = $2 AND isk = $3 AND pk = $4 AND sk = $5",
	}
	if len(got) != 1 || got["0a0b"] == nil || *got["0a0b"] != want {
		t.Fatalf("SQLIndexTables = %+v, want {0a0b: %+v}", got, want)
	}
	tbl.Indexes[0].ID = "not-hex"
	if _, err := SQLIndexTables(tbl, dollar); err == nil {
		t.Error("SQLIndexTables accepted an index ID that is not hexadecimal")
	}
}
