package storage

import (
	"fmt"
	"strings"
)

// PhysicalName is the name of a backend's physical table for a DynamoDB
// table or index: prefix followed by the ID's hexadecimal digits (lower
// case, dashes dropped). User-chosen names never reach an SQL or CQL
// identifier, and a table recreated under the same name gets new physical
// tables. Errors: an ID that is empty or not a hexadecimal UUID.
func PhysicalName(prefix, id string) (string, error) {
	var sb strings.Builder
	sb.WriteString(prefix)
	for _, c := range strings.ToLower(id) {
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
			sb.WriteRune(c)
		case c == '-':
		default:
			return "", fmt.Errorf("storage: ID %q is not a hexadecimal UUID", id)
		}
	}
	if sb.Len() == len(prefix) {
		return "", fmt.Errorf("storage: empty ID")
	}
	return sb.String(), nil
}
