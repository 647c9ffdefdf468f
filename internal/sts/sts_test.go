package sts

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestIsQueryRequest: a form-encoded POST is STS's, whatever the case and
// parameters of its Content-Type; DynamoDB's JSON and other methods are
// not, and telling them apart allocates nothing (every API request asks).
func TestIsQueryRequest(t *testing.T) {
	for _, c := range []struct {
		method, ct string
		want       bool
	}{
		{http.MethodPost, "application/x-www-form-urlencoded", true},
		{http.MethodPost, " Application/X-WWW-Form-Urlencoded ; charset=utf-8", true},
		{http.MethodPost, "application/x-amz-json-1.0", false},
		{http.MethodPost, "", false},
		{http.MethodGet, "application/x-www-form-urlencoded", false},
	} {
		r := httptest.NewRequest(c.method, "/", nil)
		r.Header.Set("Content-Type", c.ct)
		if got := IsQueryRequest(r); got != c.want {
			t.Errorf("%s %q: %v, want %v", c.method, c.ct, got, c.want)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Content-Type", "application/x-amz-json-1.0; charset=utf-8")
	if n := testing.AllocsPerRun(100, func() { IsQueryRequest(r) }); n != 0 {
		t.Errorf("%v allocations per request", n)
	}
}
