package storage

import (
	"bytes"
	"fmt"
)

// SortBound is one side of a sort-key byte range: Op is ">", ">=", "<" or
// "<=", or "" for no bound. Every backend compares encoded keys as unsigned
// bytes, so one translation of a KeyCondition serves them all.
type SortBound struct {
	Op string
	V  []byte
}

// SupersededBy reports whether a start position whose sort key is startSK
// makes this bound redundant: every row after (forward) or before
// (backward) the start already satisfies it. Otherwise the start itself is
// redundant: every row within the bound lies after (before) it.
func (bd SortBound) SupersededBy(startSK []byte, forward bool) bool {
	if bd.Op == "" {
		return true
	}
	c := bytes.Compare(startSK, bd.V)
	if !forward {
		c = -c
	}
	strict := bd.Op == ">" || bd.Op == "<"
	return c > 0 || c == 0 && !strict
}

// StartSupersedes reports whether a Query's exclusive start, read from a
// source whose rows are keyed by the index key when index is set, makes
// the bound on its side of [lo, hi] redundant (the lower bound going
// forward, the upper one backward; see SupersededBy), and then clears
// that bound: the SQL backends seek to the start instead of filtering up
// to it, and each side keeps one range constraint. When it reports false
// the start is redundant.
func StartSupersedes(start *Position, index, forward bool, lo, hi *SortBound) bool {
	startSK := start.Key.SK
	if index {
		startSK = start.IndexKey.SK
	}
	side := lo
	if !forward {
		side = hi
	}
	if !side.SupersededBy(StoredSK(startSK), forward) {
		return false
	}
	*side = SortBound{}
	return true
}

// SegmentHashRange is the range [lo, hi) of 32-bit partition hashes that
// segment Segment of a parallel Scan in TotalSegments (0 for one) reads on
// the SQL backends. Errors: a segment outside [0, TotalSegments).
func SegmentHashRange(s *ScanRequest) (lo, hi int64, err error) {
	n := int64(max(s.TotalSegments, 1))
	if s.Segment < 0 || int64(s.Segment) >= n {
		return 0, 0, fmt.Errorf("storage: segment %d outside [0, %d)", s.Segment, n)
	}
	return int64(s.Segment) << 32 / n, (int64(s.Segment) + 1) << 32 / n, nil
}

// ScanStartPK is the partition key a Scan resumes in after start (nil
// when start is): its index partition key on an index, else its table
// partition key.
func ScanStartPK(start *Position, index bool) []byte {
	switch {
	case start == nil:
		return nil
	case index:
		return start.IndexKey.PK
	}
	return start.Key.PK
}

// SortKeyRange turns a Query's sort-key condition into its lower and upper
// byte bounds; BEGINS_WITH p becomes [p, Successor(p)). Values are never
// nil (an empty key is an empty slice). Errors: an unknown operator or a
// wrong number of values.
func SortKeyRange(c KeyCondition) (lo, hi SortBound, err error) {
	want := 1
	switch c.Op {
	case "":
		return lo, hi, nil
	case "BETWEEN":
		want = 2
	case "EQ", "LT", "LE", "GT", "GE", "BEGINS_WITH":
	default:
		return lo, hi, fmt.Errorf("storage: unknown key condition %q", c.Op)
	}
	if len(c.Values) != want {
		return lo, hi, fmt.Errorf("storage: key condition %s needs %d values, got %d", c.Op, want, len(c.Values))
	}
	v := StoredSK(c.Values[0])
	switch c.Op {
	case "EQ":
		return SortBound{">=", v}, SortBound{"<=", v}, nil
	case "LT":
		return lo, SortBound{"<", v}, nil
	case "LE":
		return lo, SortBound{"<=", v}, nil
	case "GT":
		return SortBound{">", v}, hi, nil
	case "GE":
		return SortBound{">=", v}, hi, nil
	case "BETWEEN":
		return SortBound{">=", v}, SortBound{"<=", StoredSK(c.Values[1])}, nil
	default: // BEGINS_WITH
		if succ := Successor(v); succ != nil {
			return SortBound{">=", v}, SortBound{"<", succ}, nil
		}
		return SortBound{">=", v}, hi, nil
	}
}

// Successor returns the smallest byte string greater than every string
// with prefix p: p without its trailing 0xFF bytes, last byte plus one. It
// returns nil when there is none (p empty or all 0xFF): the range is then
// unbounded above.
func Successor(p []byte) []byte {
	i := len(p) - 1
	for i >= 0 && p[i] == 0xFF {
		i--
	}
	if i < 0 {
		return nil
	}
	s := make([]byte, i+1)
	copy(s, p[:i+1])
	s[i]++
	return s
}
