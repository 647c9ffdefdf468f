// Command frontecho is the ceiling of extenddb's HTTP front end: a server
// that reads a request body and answers with a fixed GetItem-shaped body of
// about 300 bytes, the headers extenddb sends, and nothing else, served by
// net/http (bare, or with extenddb's limits) or by
// github.com/valyala/fasthttp. Drive it with `extenddb load --pid` like
// extenddb itself (docs/performance.md, "The front end"):
//
//	go build -o frontecho . && ./frontecho -server nethttp -listen 127.0.0.1:18800 &
//	extenddb load --endpoint http://127.0.0.1:18800 --op GetItem --concurrency 16 --duration 5s --pid $!
//
// It is a module of its own so that extenddb does not depend on fasthttp.
package main

import (
	"flag"
	"hash/crc32"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// answer is a GetItem answer of about 300 bytes. It contains
// "TableStatus":"ACTIVE" so that extenddb load's wait for its table ends.
var answer = []byte(`{"Item":{"pk":{"S":"p00000001"},"sk":{"S":"s00000001"},"s":{"S":"` +
	strings.Repeat("x", 200) + `"},"n":{"N":"42"},"m":{"N":"3.5"},"b":{"BOOL":true},"TableStatus":"ACTIVE",` +
	`"ss":{"SS":["a","b","c"]}}}`)

func main() {
	server := flag.String("server", "nethttp", "nethttp (bare), nethttp-limits (extenddb's timeouts and header limit) or fasthttp")
	listen := flag.String("listen", "127.0.0.1:18800", "address to serve on")
	flag.Parse()
	crc := strconv.FormatUint(uint64(crc32.ChecksumIEEE(answer)), 10)
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	switch *server {
	case "nethttp", "nethttp-limits":
		srv := &http.Server{Handler: netHTTPHandler(crc)}
		if *server == "nethttp-limits" {
			srv.ReadHeaderTimeout, srv.ReadTimeout = 30*time.Second, 60*time.Second
			srv.WriteTimeout, srv.IdleTimeout = 60*time.Second, 120*time.Second
			srv.MaxHeaderBytes = 64 << 10
		}
		log.Fatal(srv.Serve(ln))
	case "fasthttp":
		srv := &fasthttp.Server{Handler: fastHTTPHandler(crc), NoDefaultServerHeader: true, NoDefaultContentType: true}
		log.Fatal(srv.Serve(ln))
	default:
		log.Fatalf("unknown -server %q", *server)
	}
}

// Header values shared by every response: net/http only reads them.
var (
	jsonType  = []string{"application/x-amz-json-1.0"}
	serverVal = []string{"Server"}
)

func netHTTPHandler(crc string) http.Handler {
	crcVal, lenVal := []string{crc}, []string{strconv.Itoa(len(answer))}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf [4096]byte
		for {
			if _, err := r.Body.Read(buf[:]); err != nil {
				break
			}
		}
		h := w.Header()
		h["Content-Type"], h["Server"], h["X-Amz-Crc32"], h["Content-Length"] = jsonType, serverVal, crcVal, lenVal
		_, _ = w.Write(answer)
	})
}

func fastHTTPHandler(crc string) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		_ = ctx.PostBody()
		ctx.Response.Header.SetContentType("application/x-amz-json-1.0")
		ctx.Response.Header.Set("Server", "Server")
		ctx.Response.Header.Set("X-Amz-Crc32", crc)
		ctx.Response.SetBody(answer)
	}
}
