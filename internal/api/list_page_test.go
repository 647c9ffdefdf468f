package api

import (
	"strings"
	"testing"
)

// TestListPage: a page resumes after the record its request names (none
// when no record has that name, from the first without one), keeps only
// the records its filters accept, holds at most its limit and says
// whether an accepted record was left for the next page, which is what
// ListBackups' LastEvaluatedBackupArn and ListImports' NextToken report.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListBackups.html
func TestListPage(t *testing.T) {
	all := []string{"a1", "b2", "a3", "a4", "b5"}
	id := func(s string) string { return s }
	isA := func(s string) bool { return strings.HasPrefix(s, "a") }
	cases := []struct {
		start string
		limit int
		want  string
		more  bool
	}{
		{"", 10, "a1 a3 a4", false},
		{"", 2, "a1 a3", true},
		{"", 3, "a1 a3 a4", false}, // b5 is not accepted: no next page
		{"a1", 1, "a3", true},
		{"b2", 5, "a3 a4", false},
		{"zz", 5, "", false},
		{"b5", 5, "", false},
	}
	for _, c := range cases {
		page, more := listPage(startAfter(all, c.start, id), isA, c.limit, id)
		if page == nil {
			t.Fatalf("start %q: a nil page would be sent as null, not []", c.start)
		}
		if got := strings.Join(page, " "); got != c.want || more != c.more {
			t.Errorf("start %q limit %d: page %q more %v, want %q %v", c.start, c.limit, got, more, c.want, c.more)
		}
	}
	if pageSize(nil, 25) != 25 {
		t.Error("pageSize without a member is not the default")
	}
	if n := int64(7); pageSize(&n, 25) != 7 {
		t.Error("pageSize ignores the member")
	}
}
