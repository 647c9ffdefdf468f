package api

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// constraints collects DynamoDB's member-constraint violations, which it
// reports together as "N validation error(s) detected: a; b; c" before any
// semantic check runs. Paths use DynamoDB's lower-camel member names and
// 1-based list positions, e.g. 'keySchema.1.member.attributeName'.
// DynamoDB reports at most ten violations (maxConstraintErrors).
type constraints struct{ msgs []string }

// maxConstraintErrors is how many violations DynamoDB lists in one answer;
// checking stops there.
// https://github.com/mhart/dynalite/blob/master/validations/index.js (errors.length >= 10)
// https://github.com/mhart/dynalite/blob/master/test/createTable.js ("10 validation errors detected" for 9 empty indexes)
const maxConstraintErrors = 10

func (c *constraints) add(format string, args ...any) {
	if len(c.msgs) >= maxConstraintErrors {
		return
	}
	c.msgs = append(c.msgs, fmt.Sprintf(format, args...))
}

// notNull records "Value null at 'path' ..." when present is false.
func (c *constraints) notNull(present bool, path string) bool {
	if !present {
		c.add("Value null at '%s' failed to satisfy constraint: Member must not be null", path)
	}
	return present
}

func (c *constraints) enum(v *string, path string, allowed ...string) {
	if v == nil {
		return
	}
	for _, a := range allowed {
		if *v == a {
			return
		}
	}
	c.add("Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [%s]", *v, path, strings.Join(allowed, ", "))
}

func (c *constraints) minInt(v *int64, path string, min int64) {
	if v != nil && *v < min {
		c.add("Value '%d' at '%s' failed to satisfy constraint: Member must have value greater than or equal to %d", *v, path, min)
	}
}

func (c *constraints) maxInt(v *int64, path string, max int64) {
	if v != nil && *v > max {
		c.add("Value '%d' at '%s' failed to satisfy constraint: Member must have value less than or equal to %d", *v, path, max)
	}
}

// intRange checks min <= *v <= max for a present v (DynamoDB's Range
// constraint: one message, for the bound it breaks).
func (c *constraints) intRange(v *int64, path string, min, max int64) {
	c.minInt(v, path, min)
	c.maxInt(v, path, max)
}

func (c *constraints) lenRange(s *string, path string, min, max int) {
	if s == nil {
		return
	}
	if n := len(*s); n < min {
		c.add("Value '%s' at '%s' failed to satisfy constraint: Member must have length greater than or equal to %d", *s, path, min)
	} else if n > max {
		c.add("Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", *s, path, max)
	}
}

var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_.\-]+$`)

// name checks a table or index name: 3..255 characters of [a-zA-Z0-9_.-].
func (c *constraints) name(s *string, path string) {
	if s == nil {
		return
	}
	if !namePattern.MatchString(*s) {
		c.add("Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+", *s, path)
	}
	c.lenRange(s, path, 3, 255)
}

func (c *constraints) listLen(n int, present bool, path string, min, max int, render func() string) {
	if !present {
		return
	}
	if n < min {
		c.add("Value '%s' at '%s' failed to satisfy constraint: Member must have length greater than or equal to %d", render(), path, min)
	} else if max > 0 && n > max {
		c.add("Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", render(), path, max)
	}
}

// err returns the collected violations as one ValidationException, or nil.
func (c *constraints) err() error {
	switch len(c.msgs) {
	case 0:
		return nil
	case 1:
		return ddberr.Validation("1 validation error detected: %s", c.msgs[0])
	}
	return ddberr.Validation("%s validation errors detected: %s", strconv.Itoa(len(c.msgs)), strings.Join(c.msgs, "; "))
}

// tableName checks the TableName member of an operation on an existing
// table ('tableName' path). Since table ARNs are accepted in its place, the
// model allows 1 to 1,024 characters; a value that is not a table ARN must
// also be a table name (3 to 255 characters of [a-zA-Z0-9_.-]).
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html#DDB-PutItem-request-TableName
func (c *constraints) tableName(s *string) {
	c.tableRef(s, "tableName")
}

// tableRef is tableName at any path.
func (c *constraints) tableRef(s *string, path string) {
	if !c.notNull(s != nil, path) {
		return
	}
	switch n := len(*s); {
	case n == 0:
		c.add("Value '' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1", path)
	case n > maxTableRefLen:
		c.add("Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", *s, path, maxTableRefLen)
	default:
		if _, ok := tableNameOfArn(*s); !ok {
			c.name(s, path)
		}
	}
}

// maxTableRefLen is the longest TableName (a name or a table ARN).
const maxTableRefLen = 1024

func invalid(format string, args ...any) error {
	return ddberr.Validation("One or more parameter values were invalid: "+format, args...)
}
