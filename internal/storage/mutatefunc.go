package storage

import (
	"fmt"
	"reflect"

	"github.com/extenddb/extenddb/internal/item"
)

// CallMutateFunc runs fn on old, turning a panic into an error, so that a
// fault in the engine's function fails one write rather than the process.
func CallMutateFunc(fn MutateFunc, old item.Item) (nw item.Item, err error) {
	defer func() {
		if p := recover(); p != nil {
			nw, err = nil, fmt.Errorf("storage: mutate function panicked: %v", p)
		}
	}()
	return fn(old)
}

// SameImage reports whether a and b are the very same non-nil map: a
// MutateFunc returning its old image itself asks for no write.
func SameImage(a, b item.Item) bool {
	if a == nil || b == nil {
		return false
	}
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
