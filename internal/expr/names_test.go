package expr

import (
	"reflect"
	"testing"

	"github.com/extenddb/extenddb/internal/item"
)

// TestTopLevelNames: the top-level attribute names of each kind of
// expression, with #names resolved, as dynamodb:Attributes lists them.
func TestTopLevelNames(t *testing.T) {
	names := map[string]string{"#n": "Name"}
	values := map[string]item.AttributeValue{":v": {Type: item.TypeN, S: "1"}}
	c, err := ParseCondition(KindCondition, "a.b[1] > :v AND attribute_exists(#n) OR size(a) < :v", names, values, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.TopLevelNames(); !reflect.DeepEqual(got, []string{"a", "Name"}) {
		t.Errorf("condition: %v", got)
	}
	u, err := ParseUpdate("SET x = y + :v, z.q = if_not_exists(#n, :v) REMOVE w", names, values, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.TopLevelNames(); !reflect.DeepEqual(got, []string{"x", "y", "z", "Name", "w"}) {
		t.Errorf("update: %v", got)
	}
	p, err := ParseProjection("a.b, #n, a.c[0], d", names, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.TopLevelNames(); !reflect.DeepEqual(got, []string{"a", "Name", "d"}) {
		t.Errorf("projection: %v", got)
	}
}
