package main

import (
	"github.com/spf13/cobra"

	"github.com/extenddb/extenddb/internal/auth"
)

// certCmd is `extenddb cert`: a self-signed CA and a server certificate.
func certCmd() *cobra.Command {
	var dir string
	var names []string
	cmd := &cobra.Command{
		Use:   "cert --dir DIR --name localhost --name 127.0.0.1",
		Short: "Create a self-signed CA (ca.pem) and a server certificate (server.pem, server-key.pem) for the given names",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ownerOnlyFiles()
			if err := auth.WriteCertificates(dir, names); err != nil {
				return err
			}
			c.Printf("wrote %s/ca.pem, %s/server.pem and %s/server-key.pem\n", dir, dir, dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "./extenddb-tls", "directory to write the files to")
	cmd.Flags().StringSliceVar(&names, "name", []string{"localhost", "127.0.0.1", "::1"}, "DNS names and IP addresses the server certificate is valid for")
	return cmd
}
