package auth

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// LoopbackHostOnly wraps the handler of the local mode: a request whose
// Host header is not a loopback name or address (localhost, *.localhost,
// 127.0.0.0/8, ::1) is refused with 403 and changes nothing. A web page
// that rebinds its own DNS name to 127.0.0.1 sends its own name as Host,
// so it cannot reach an unauthenticated server on the user's machine.
func LoopbackHostOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !IsLoopbackHost(r.Host) {
			// Marshalled, not concatenated: the Host header is the
			// client's and must not break (or add to) the JSON.
			body, _ := json.Marshal(struct {
				Type    string `json:"__type"`
				Message string `json:"message"`
			}{"com.amazon.coral.service#AccessDeniedException", "Host '" + r.Host + "' is not a loopback name or address; " +
				"this server runs without authentication and answers loopback clients only (see docs/security.md)"})
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write(body)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// IsLoopbackHost reports whether a Host header value names the loopback
// interface.
func IsLoopbackHost(host string) bool {
	h := host
	if sh, _, err := net.SplitHostPort(host); err == nil {
		h = sh
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
