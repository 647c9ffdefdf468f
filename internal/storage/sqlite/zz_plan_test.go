package sqlite

import (
	"testing"
)

func TestZZPlan(t *testing.T) {
	b, _ := openTemp(t, Options{})
	for _, d := range []string{itemsDDL("t_x"), indexDDL("i_x")} {
		if _, err := b.wdb.Exec(d); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		"SELECT pk, sk, item, size FROM t_x WHERE h = 1 AND pk = x'01' AND sk >= x'01' AND sk < x'02' AND sk < x'0101' ORDER BY sk DESC",
		"SELECT pk, sk, item, size FROM t_x WHERE h >= 0 AND h < 100 AND (h, pk, sk) > (5, x'01', x'') ORDER BY h, pk, sk",
		"SELECT ipk, isk, pk, sk, item, size FROM i_x WHERE h = 1 AND ipk = x'01' AND isk >= x'01' AND (isk, pk, sk) > (x'01', x'01', x'') ORDER BY isk ASC, pk ASC, sk ASC",
		"SELECT ipk, isk, pk, sk, item, size FROM i_x WHERE h = 1 AND ipk = x'01' AND (isk, pk, sk) < (x'01', x'01', x'') ORDER BY isk DESC, pk DESC, sk DESC",
		"SELECT ipk, isk, pk, sk, item, size FROM i_x WHERE h >= 0 AND h < 100 AND (h, ipk, isk, pk, sk) > (5, x'01', x'', x'', x'') ORDER BY h, ipk, isk, pk, sk",
	} {
		rows, err := b.wdb.Query("EXPLAIN QUERY PLAN " + q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var a, b2, c int
			var s string
			rows.Scan(&a, &b2, &c, &s)
			t.Log(s)
		}
		rows.Close()
	}
}
