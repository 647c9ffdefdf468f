package clock

import (
	"testing"
	"time"
)

func TestManualMovesOnlyWhenTold(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := NewManual(start)
	if got := m.Now(); !got.Equal(start) {
		t.Fatalf("Now = %v, want %v", got, start)
	}
	got, err := m.Advance(36 * time.Hour)
	if err != nil || !got.Equal(start.Add(36*time.Hour)) || !m.Now().Equal(got) {
		t.Fatalf("Advance = %v, %v; Now %v", got, err, m.Now())
	}
	if _, err := m.Advance(-time.Second); err == nil {
		t.Fatal("Advance(-1s) succeeded")
	}
	back := time.Date(2020, 5, 1, 0, 0, 0, 0, time.UTC)
	if got := m.Set(back); !got.Equal(back) || !m.Now().Equal(back) {
		t.Fatalf("Set = %v; Now %v", got, m.Now())
	}
}

func TestNewModes(t *testing.T) {
	for mode, want := range map[string]string{"": "system", "system": "system", "manual": "manual"} {
		c, err := New(mode)
		if err != nil || Mode(c) != want {
			t.Errorf("New(%q) = %v (%s), %v; want %s", mode, c, Mode(c), err, want)
		}
	}
	if _, err := New("fast"); err == nil {
		t.Error(`New("fast") succeeded`)
	}
}
