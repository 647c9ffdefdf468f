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
