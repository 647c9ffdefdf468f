package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"
)

// healthCmd is `extenddb health`: GET /health (or /ready with --ready) of a
// running server, exit status 0 when it answers 200. Container health checks
// use it, as the image has no curl. The address is --listen's, from the flag
// or EXTENDDB_LISTEN, with an unspecified host (0.0.0.0) asked on loopback,
// over HTTPS when EXTENDDB_TLS_CERT is set.
func healthCmd() *cobra.Command {
	var listen string
	var ready bool
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Check that a running server answers /health (or /ready): exit 0 when it does",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("listen") {
				if env := os.Getenv("EXTENDDB_LISTEN"); env != "" {
					listen = env
				}
			}
			host, port, err := net.SplitHostPort(listen)
			if err != nil {
				return fmt.Errorf("listen: %q is not host:port", listen)
			}
			if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
				host = "127.0.0.1"
			}
			path := "/health"
			if ready {
				path = "/ready"
			}
			scheme, client := "http", &http.Client{Timeout: 5 * time.Second}
			if os.Getenv("EXTENDDB_TLS_CERT") != "" {
				// The server's own certificate, asked on loopback: the
				// probe checks liveness, not the certificate's names.
				scheme = "https"
				client.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
			}
			url := scheme + "://" + net.JoinHostPort(host, port) + path
			resp, err := client.Get(url)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("%s answered %s", url, resp.Status)
			}
			fmt.Fprintln(cmd.OutOrStdout(), url, "ok")
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8000", "the server's --listen address (default EXTENDDB_LISTEN, else 127.0.0.1:8000)")
	cmd.Flags().BoolVar(&ready, "ready", false, "ask /ready (storage reachable) instead of /health")
	return cmd
}
