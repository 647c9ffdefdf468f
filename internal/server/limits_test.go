package server

import "testing"

// Connections are fitted to the descriptor limit, keeping a reserve for
// storage; a limit that fits is kept.
func TestFitConnections(t *testing.T) {
	cases := []struct {
		limit  int
		nofile uint64
		want   int
	}{
		{1024, 0, 1024},          // unknown limit
		{1024, 1 << 20, 1024},    // plenty
		{1024, 1024 + 256, 1024}, // exactly fits with the reserve
		{1024, 1024, 768},        // Linux's usual soft limit
		{1024, 256, 128},         // macOS's usual soft limit: half kept
		{1024, 200, 100},
		{1024, 1, 1},
		{50, 200, 50}, // a small configured limit is kept when it fits
	}
	for _, c := range cases {
		if got := fitConnections(c.limit, c.nofile); got != c.want {
			t.Errorf("fitConnections(%d, %d) = %d, want %d", c.limit, c.nofile, got, c.want)
		}
	}
}
