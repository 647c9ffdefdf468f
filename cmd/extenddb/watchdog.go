package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/extenddb/extenddb/internal/watchdog"
)

// watchdogCmd is the hidden subcommand an --in-memory server starts to
// remove its directory after the server dies (internal/watchdog).
func watchdogCmd() *cobra.Command {
	return &cobra.Command{
		Use:    watchdog.Command + " DIR",
		Short:  "Remove DIR once standard input closes (started by serve --in-memory)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return watchdog.Run(os.Stdin, args[0])
		},
	}
}

// guardMemoryDir starts the watchdog of an --in-memory directory, re-running
// this executable.
func guardMemoryDir(dir string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("watchdog: %w", err)
	}
	return watchdog.Guard(exe, dir)
}
