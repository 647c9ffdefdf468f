package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

// benchBodies are a small PutItem and one carrying a 400 KB item.
var benchBodies = map[string][]byte{
	"small": []byte(`{"TableName":"t","Item":{"pk":{"S":"user#1"},"n":{"N":"42"},"s":{"S":"hello"}}}`),
	"400KB": []byte(`{"TableName":"t","Item":{"pk":{"S":"user#1"},"v":{"S":"` + strings.Repeat("é", 200_000) + `"}}}`),
}

// BenchmarkCheckJSONBody is the front door's check of every body (JSON
// object, UTF-8, surrogates); compare with BenchmarkDecodeBody, the decoding
// every operation does after it:
//
//	go test -run X -bench 'CheckJSONBody|DecodeBody' ./internal/protocol/
func BenchmarkCheckJSONBody(b *testing.B) {
	for name, body := range benchBodies {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if err := checkJSONBody(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeBody(b *testing.B) {
	for name, body := range benchBodies {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var v map[string]any
				if err := json.Unmarshal(body, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
