package main

import (
	"io"
	"log/slog"
	"strings"
)

// newLogger makes the server's logger: format "text" (slog's key=value
// lines) or "json" (one JSON object a line), at level and above.
func newLogger(w io.Writer, format, level string) *slog.Logger {
	lvl, _ := parseLevel(level)
	opts := &slog.HandlerOptions{Level: lvl}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	err := l.UnmarshalText([]byte(strings.ToLower(s)))
	return l, err
}
