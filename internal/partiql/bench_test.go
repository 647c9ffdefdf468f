package partiql

import (
	"testing"

	"github.com/extenddb/extenddb/internal/item"
)

// Parse + plan of each statement kind, in the shapes of AWS's examples:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.html

var benchStatements = []struct{ name, src string }{
	{"SelectGet", `SELECT * FROM "Music" WHERE pk = ? AND sk = ?`},
	{"SelectQuery", `SELECT a, b.c[0] FROM "Music" WHERE pk = ? AND sk > ? AND n <> 3 ORDER BY sk DESC`},
	{"SelectScan", `SELECT * FROM "Music" WHERE begins_with(a, 'x') OR size(b) > 2 AND c IS NOT MISSING`},
	{"Insert", `INSERT INTO "Music" VALUE {'pk': ?, 'sk': ?, 'AlbumTitle': 'Songs', 'Awards': 1, 'Tags': <<'a', 'b'>>}`},
	{"Update", `UPDATE "Music" SET Awards = Awards + 1 SET Tags = set_add(Tags, <<'c'>>) WHERE pk = ? AND sk = ? RETURNING ALL NEW *`},
	{"Delete", `DELETE FROM "Music" WHERE pk = ? AND sk = ? AND Awards > 0`},
}

var benchParams = []item.AttributeValue{{Type: item.TypeS, S: "Acme Band"}, {Type: item.TypeN, S: "3"}}

func benchPlan(b *testing.B, parse func(string) (*Statement, error)) {
	for _, bs := range benchStatements {
		b.Run(bs.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				st, err := parse(bs.src)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := PlanStatement(st, benchParams, testSchema); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParsePlan parses every time.
func BenchmarkParsePlan(b *testing.B) { benchPlan(b, Parse) }

// BenchmarkParsePlanCached parses through the statement cache.
func BenchmarkParsePlanCached(b *testing.B) { benchPlan(b, ParseCached) }
