package storage

import (
	"fmt"
	"strings"
)

// PhysicalName is the name of a backend's physical table for a DynamoDB
// table or index: prefix followed by the ID's hexadecimal digits (lower
// case, dashes dropped). User-chosen names never reach an SQL or CQL
// identifier, and a table recreated under the same name gets new physical
// tables. Errors: an ID that is empty or not a hexadecimal UUID.
func PhysicalName(prefix, id string) (string, error) {
	var sb strings.Builder
	sb.WriteString(prefix)
	for _, c := range strings.ToLower(id) {
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
			sb.WriteRune(c)
		case c == '-':
		default:
			return "", fmt.Errorf("storage: ID %q is not a hexadecimal UUID", id)
		}
	}
	if sb.Len() == len(prefix) {
		return "", fmt.Errorf("storage: empty ID")
	}
	return sb.String(), nil
}

// ItemsTableName and IndexTableName are the physical table names of a
// table and of an index of the SQL backends (PhysicalName with the
// prefixes "t_" and "i_").
func ItemsTableName(id string) (string, error) { return PhysicalName("t_", id) }

// IndexTableName: see ItemsTableName.
func IndexTableName(id string) (string, error) { return PhysicalName("i_", id) }

// StoredSK is how a backend stores a missing sort key: the empty, non-nil
// slice (a nil []byte binds as NULL, and a key column cannot be null).
func StoredSK(sk []byte) []byte {
	if sk == nil {
		return []byte{}
	}
	return sk
}

// LoadedSK maps a stored empty sort key back to a missing one (nil).
func LoadedSK(sk []byte) []byte {
	if len(sk) == 0 {
		return nil
	}
	return sk
}

// SQLSource is the physical table of the SQL backends that a read of a
// table, or of one of its indexes, goes to: its name and columns.
type SQLSource struct {
	Name  string
	Index bool   // an index table: rows carry the index key before the table key
	PKCol string // the partition key column
	Cols  string // the columns a row is read from, in Row order
}

// SQLSourceOf returns the source of a read of t, or of its index named
// index when that is not "". Errors: ErrTableNotFound (wrapped) when t has
// no such index, and PhysicalName's.
func SQLSourceOf(t *Table, index string) (SQLSource, error) {
	if index == "" {
		name, err := ItemsTableName(t.ID)
		return SQLSource{Name: name, PKCol: "pk", Cols: "pk, sk, item, size"}, err
	}
	ix := t.Index(index)
	if ix == nil {
		return SQLSource{}, fmt.Errorf("%w: table %s has no index %s", ErrTableNotFound, t.Name, index)
	}
	name, err := IndexTableName(ix.ID)
	return SQLSource{Name: name, Index: true, PKCol: "ipk", Cols: "ipk, isk, pk, sk, item, size"}, err
}

// SQLCollectionSums returns the SQL statements that each sum the stored
// sizes (the size column) of one part of an item collection of t: its
// items of one partition key, then their rows in each maintained local
// secondary index. hash and pk are the placeholders of the partition hash
// and key ("?" or "$1" and "$2"). The collection's size, which DynamoDB
// limits to 10 GB, is their total.
func SQLCollectionSums(t *Table, hash, pk string) ([]string, error) {
	name, err := ItemsTableName(t.ID)
	if err != nil {
		return nil, err
	}
	sums := []string{"SELECT coalesce(sum(size), 0) FROM " + name + " WHERE h = " + hash + " AND pk = " + pk}
	for _, ix := range t.Indexes {
		if ix.Global || !ix.Maintained() {
			continue
		}
		iname, err := IndexTableName(ix.ID)
		if err != nil {
			return nil, err
		}
		sums = append(sums, "SELECT coalesce(sum(size), 0) FROM "+iname+" WHERE h = "+hash+" AND ipk = "+pk)
	}
	return sums, nil
}

// SQLQueryOrder is the ORDER BY clause of a Query of an index table
// (index) or an items table: by sort key, then for an index by table key,
// ascending when forward, else descending.
func SQLQueryOrder(index, forward bool) string {
	dir := ""
	if !forward {
		dir = " DESC"
	}
	if index {
		return " ORDER BY isk" + dir + ", pk" + dir + ", sk" + dir
	}
	return " ORDER BY sk" + dir
}

// SQLScanOrder is the ORDER BY clause of a Scan of an index table (index)
// or an items table: by partition hash, then by key, ascending.
func SQLScanOrder(index bool) string {
	if index {
		return " ORDER BY h, ipk, isk, pk, sk"
	}
	return " ORDER BY h, pk, sk"
}

// SQLTypes are an SQL dialect's column types of the physical items and
// index tables that ItemsDDL and IndexDDL create.
type SQLTypes struct {
	Hash       string // the partition hash h, a 64-bit integer
	Size       string // an item's stored size in bytes
	Bytes      string // keys and items, compared as unsigned bytes
	EmptyBytes string // the literal of the empty byte string (a missing sort key)
}

// ItemsDDL is the statement that creates the physical items table name if
// it does not exist: (h, pk, sk, item, size), PRIMARY KEY (h, pk, sk).
func (ty SQLTypes) ItemsDDL(name string) string { return ty.keyedDDL(name, "pk", "sk") }

// IndexDDL is the statement that creates the physical table name of a
// secondary index if it does not exist: (h, ipk, isk, pk, sk, item, size),
// PRIMARY KEY (h, ipk, isk, pk, sk); a row carries the index key before the
// table key.
func (ty SQLTypes) IndexDDL(name string) string {
	return ty.keyedDDL(name, "ipk", "isk", "pk", "sk")
}

// keyedDDL creates table name keyed by h and keys, pairs of partition and
// sort key columns; a sort key column defaults to the empty byte string.
func (ty SQLTypes) keyedDDL(name string, keys ...string) string {
	var sb strings.Builder
	sb.WriteString("CREATE TABLE IF NOT EXISTS " + name + " (\n\th    " + ty.Hash + " NOT NULL,\n")
	for i, k := range keys {
		fmt.Fprintf(&sb, "\t%-4s %s NOT NULL", k, ty.Bytes)
		if i%2 == 1 {
			sb.WriteString(" DEFAULT " + ty.EmptyBytes)
		}
		sb.WriteString(",\n")
	}
	sb.WriteString("\titem " + ty.Bytes + " NOT NULL,\n\tsize " + ty.Size + " NOT NULL,\n")
	sb.WriteString("\tPRIMARY KEY (h, " + strings.Join(keys, ", ") + ")\n)")
	return sb.String()
}

// SQLIndexTable is the physical table of a secondary index on an SQL
// backend, with the statements that write its rows.
type SQLIndexTable struct {
	Name string
	// Put writes the row (h, ipk, isk, pk, sk, item, size), parameters 1
	// to 7, in place of one with the same key.
	Put string
	// Del deletes the row of key (h, ipk, isk, pk, sk), parameters 1 to 5.
	Del string
}

// SQLIndexTables returns the physical tables of t's indexes by index ID.
// param(n) is the dialect's placeholder of parameter n, counted from 1
// ("?" or "$n"). Errors: an index ID that is not a hexadecimal UUID.
func SQLIndexTables(t *Table, param func(n int) string) (map[string]*SQLIndexTable, error) {
	ps := make([]string, 7)
	for i := range ps {
		ps[i] = param(i + 1)
	}
	out := make(map[string]*SQLIndexTable, len(t.Indexes))
	for _, ix := range t.Indexes {
		name, err := IndexTableName(ix.ID)
		if err != nil {
			return nil, err
		}
		out[ix.ID] = &SQLIndexTable{
			Name: name,
			Put: "INSERT INTO " + name + " (h, ipk, isk, pk, sk, item, size) VALUES (" + strings.Join(ps, ", ") + ")" +
				" ON CONFLICT (h, ipk, isk, pk, sk) DO UPDATE SET item = excluded.item, size = excluded.size",
			Del: "DELETE FROM " + name + " WHERE h = " + ps[0] + " AND ipk = " + ps[1] + " AND isk = " + ps[2] +
				" AND pk = " + ps[3] + " AND sk = " + ps[4],
		}
	}
	return out, nil
}
