package jobs

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the runner's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Every job's progress reaches the server log at info level: a line at
// its first checkpoint, then at most one every five seconds (many
// checkpoints in a moment log once), and the job's end with its totals.
func TestRunnerLogsProgressRateLimited(t *testing.T) {
	s := newStore(t)
	var buf syncBuffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	r := NewRunner(s, Config{Poll: 20 * time.Millisecond, Log: log})
	r.Register("copy", func(ctx context.Context, run *Run) error {
		for i := int64(1); i <= 50; i++ {
			if err := run.Checkpoint(ctx, i, Progress{Done: i, Total: 50, Bytes: 10 * i}); err != nil {
				return err
			}
		}
		return nil
	})
	if _, err := s.Create(context.Background(), "copy", "one", "acct", nil); err != nil {
		t.Fatal(err)
	}
	startRunner(t, r)
	waitState(t, s, "copy", "one", Succeeded)
	out := buf.String()
	if n := strings.Count(out, `msg="job progress"`); n != 1 {
		t.Fatalf("%d progress lines for 50 checkpoints in a moment, want 1:\n%s", n, out)
	}
	for _, want := range []string{
		`level=INFO msg="job progress" kind=copy id=one done=1 total=50 bytes=10`,
		`level=INFO msg="job ended" kind=copy id=one state=SUCCEEDED error="" done=50 total=50 bytes=500`,
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("log lacks %q:\n%s", want, out)
		}
	}
}
