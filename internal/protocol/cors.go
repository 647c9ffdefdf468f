package protocol

import (
	"net/http"
	"slices"
)

// corsExposeHeaders are the response headers a browser script may read:
// the ones the AWS SDKs for JavaScript use.
const corsExposeHeaders = "x-amzn-RequestId,x-amzn-ErrorType,x-amz-crc32,Date"

// corsMaxAge is how long (seconds) a browser may cache a preflight answer.
const corsMaxAge = "172800"

// setCORS adds DynamoDB's CORS headers to the answer of a request that
// carries an Origin header: any origin may call (authorization is the
// request signature, not the origin), and a preflight (OPTIONS) is granted
// the method and headers it asks for. A request without Origin gets no CORS
// header. It reports whether r is a preflight, which is answered with an
// empty 200 and never reaches an operation.
// https://docs.aws.amazon.com/sdk-for-javascript/v3/developer-guide/cors.html
//
// allowed, when it lists origins (DynamoDB Local's -cors), narrows this: a
// listed origin is echoed in Access-Control-Allow-Origin (with Vary:
// Origin), any other gets no CORS header, so browsers refuse its calls. An
// empty list, or one holding "*", allows every origin.
func setCORS(h http.Header, r *http.Request, allowed []string) (preflight bool) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	switch {
	case len(allowed) == 0 || slices.Contains(allowed, "*"):
		h.Set("Access-Control-Allow-Origin", "*")
	case slices.Contains(allowed, origin):
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
	default:
		return false
	}
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	if r.Method != http.MethodOptions {
		return false
	}
	h.Set("Access-Control-Max-Age", corsMaxAge)
	if m := r.Header.Get("Access-Control-Request-Method"); m != "" {
		h.Set("Access-Control-Allow-Methods", m)
	}
	if hs := r.Header.Get("Access-Control-Request-Headers"); hs != "" {
		h.Set("Access-Control-Allow-Headers", hs)
	}
	return true
}
