package api

import (
	"context"
	"strings"
	"unicode/utf16"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// Tagging: TagResource, UntagResource, ListTagsOfResource.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Tagging.html

const maxTagsPerResource = 50

type tagResourceInput struct {
	resourceArnInput
	Tags []tag
}

type untagResourceInput struct {
	resourceArnInput
	TagKeys []string
}

type listTagsInput struct {
	resourceArnInput
	NextToken *string
}

type tagOut struct {
	Key   string
	Value string
}

type listTagsOutput struct {
	Tags      []tagOut
	NextToken string `json:"NextToken,omitempty"`
}

func tagConstraints(c *constraints, tg tag, p string) {
	if c.notNull(tg.Key != nil, p+"key") {
		tagLength(c, *tg.Key, p+"key", 1, 128)
	}
	if c.notNull(tg.Value != nil, p+"value") {
		tagLength(c, *tg.Value, p+"value", 0, 256)
	}
}

// tagLength checks the length of a tag key or value in characters (UTF-16
// code units, as the service counts them), not bytes: a key of 128 "é" is
// allowed.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Tagging.html#TaggingRestrictions
func tagLength(c *constraints, s, path string, min, max int) {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	if n < min {
		c.add("Value '%s' at '%s' failed to satisfy constraint: Member must have length greater than or equal to %d", s, path, min)
	} else if n > max {
		c.add("Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", s, path, max)
	}
}

func checkTagKeysUnique(tags []storage.Tag) error {
	if len(tags) > maxTagsPerResource {
		return ddberr.Validation("One or more parameter values were invalid: The number of tags exceeds the limit of %d", maxTagsPerResource)
	}
	return nil
}

// checkReservedTagKeys refuses tag keys with the prefix aws:, in any case,
// which AWS reserves for its own tags.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TaggingRestrictions.html
// DynamoDB's wording of this error is not known; the message is extenddb's
// (docs/differences-from-dynamodb.md).
func checkReservedTagKeys(keys []string) error {
	for _, k := range keys {
		if len(k) >= 4 && strings.EqualFold(k[:4], "aws:") {
			return invalid("Tag keys starting with aws: are reserved for AWS use. Tag key: %s", k)
		}
	}
	return nil
}

// tagKeys returns the keys of tags.
func tagKeys(tags []tag) []string {
	out := make([]string, 0, len(tags))
	for _, tg := range tags {
		out = append(out, *tg.Key)
	}
	return out
}

// tableArnName checks a resource ARN's form,
// arn:aws:dynamodb:<region>:<account>:table/<name>, and returns the table
// name and account it names.
//
// A value that does not start with "arn:" is refused in DynamoDB's current
// words (scylladb's test_tag_resource_incorrect quotes them; DynamoDB
// used to answer AccessDeniedException). An ARN of another service or
// resource type, or whose table name is not a valid name, is an
// "Invalid TableArn" (architect/dynalite test/tagResource.js). An index
// has an ARN (DescribeTable's IndexArn) but no tags of its own: DynamoDB
// refuses it as scylladb's test_tag_lsi_gsi records
// (https://github.com/scylladb/scylladb/blob/master/test/alternator/test_tag.py).
func tableArnName(arn string) (name, account string, err error) {
	if !strings.HasPrefix(arn, "arn:") {
		return "", "", ddberr.Validation("ARNs must start with 'arn:'")
	}
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[2] != "dynamodb" || !strings.HasPrefix(parts[5], "table/") {
		return "", "", errInvalidTableArn(arn)
	}
	table, rest, sub := strings.Cut(strings.TrimPrefix(parts[5], "table/"), "/")
	switch {
	case !validTableName(table) || sub && !strings.HasPrefix(rest, "index/"):
		// Not a table's name, or a stream or backup ARN under a table.
		return "", "", errInvalidTableArn(arn)
	case sub:
		return "", "", invalid("Invalid resource arn provided, only table or stream is accepted. Provided resource %s", arn)
	}
	return table, parts[4], nil
}

// errResourceArnNotFound is TagResource's and ListTagsOfResource's answer
// to the ARN of a missing table (architect/dynalite test/tagResource.js,
// test/listTagsOfResource.js); UntagResource says only "Requested resource
// not found" (test/untagResource.js).
func errResourceArnNotFound(p policyTarget) error {
	return ddberr.ResourceNotFound("Requested resource not found: ResourcArn: %s not found", p.arn)
}

// requireResourceArn is DynamoDB's answer to a tagging request without a
// ResourceArn, "Invalid TableArn", given before the member constraints
// (architect/dynalite test/tagResource.js, test/untagResource.js,
// test/listTagsOfResource.js).
func (in *resourceArnInput) requireResourceArn() error {
	if in.ResourceArn == nil {
		return ddberr.Validation("Invalid TableArn")
	}
	return nil
}

// errInvalidTableArn is DynamoDB's answer to a resource ARN that does not
// name a table.
func errInvalidTableArn(arn string) error {
	return ddberr.Validation("Invalid TableArn: Invalid ResourceArn provided as input %s", arn)
}

var (
	tagResourceOp = taggingOp[tagResourceInput](tagResourceRules, func(in *tagResourceInput) error {
		return nonEmpty(len(in.Tags), "Atleast one Tag needs to be provided as Input.")
	}, errResourceArnNotFound, (*Engine).tagResource)
	untagResourceOp = taggingOp[untagResourceInput](untagResourceRules, func(in *untagResourceInput) error {
		return nonEmpty(len(in.TagKeys), "Atleast one Tag Key needs to be provided as Input.")
	}, func(policyTarget) error { return ddberr.ResourceNotFound("Requested resource not found") }, (*Engine).untagResource)
	listTagsOfResourceOp = taggingOp[listTagsInput](listTagsRules, nil, errResourceArnNotFound, (*Engine).listTagsOfResource)
)

// taggingOp is a tagging operation: a missing ResourceArn first, the
// member rules, the ARN's form, then check (an empty list of tags or keys),
// before the table, which is notFound when missing (docs/adr/0008b).
func taggingOp[T any, P interface {
	*T
	arnTarget() *resourceArnInput
}](rs rules[T], check func(in *T) error, notFound func(policyTarget) error,
	execute func(e *Engine, ctx context.Context, c caller, in *T, t *storage.Table) (any, error)) *controlOp[T] {
	return &controlOp[T]{
		first: func(in *T) error { return P(in).arnTarget().requireResourceArn() },
		rules: rs,
		check: func(_ *Engine, _ caller, in *T) error {
			if err := P(in).arnTarget().parseTable(); err != nil || check == nil {
				return err
			}
			return check(in)
		},
		table:   byResourceArn[T, P](notFound),
		execute: execute,
	}
}

// nonEmpty refuses an empty list (of n members) of a tagging request with
// DynamoDB's message msg.
func nonEmpty(n int, msg string) error {
	if n == 0 {
		return ddberr.Validation("%s", msg)
	}
	return nil
}

func (e *Engine) tagResource(ctx context.Context, _ caller, in *tagResourceInput, t *storage.Table) (any, error) {
	if err := checkReservedTagKeys(tagKeys(in.Tags)); err != nil {
		return nil, err
	}
	if _, err := e.updateCatalog(ctx, t, func(t *storage.Table) error {
		for _, tg := range in.Tags {
			replaced := false
			for i := range t.Tags {
				if t.Tags[i].Key == *tg.Key {
					t.Tags[i].Value = *tg.Value
					replaced = true
				}
			}
			if !replaced {
				t.Tags = append(t.Tags, storage.Tag{Key: *tg.Key, Value: *tg.Value})
			}
		}
		if len(t.Tags) > maxTagsPerResource {
			return ddberr.LimitExceeded("The number of tags exceeds the limit of %d.", maxTagsPerResource)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

func (e *Engine) untagResource(ctx context.Context, _ caller, in *untagResourceInput, t *storage.Table) (any, error) {
	if err := checkReservedTagKeys(in.TagKeys); err != nil {
		return nil, err
	}
	drop := map[string]bool{}
	for _, k := range in.TagKeys {
		drop[k] = true
	}
	if _, err := e.updateCatalog(ctx, t, func(t *storage.Table) error {
		kept := t.Tags[:0:0]
		for _, tg := range t.Tags {
			if !drop[tg.Key] {
				kept = append(kept, tg)
			}
		}
		t.Tags = kept
		return nil
	}); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

func (e *Engine) listTagsOfResource(_ context.Context, _ caller, _ *listTagsInput, t *storage.Table) (any, error) {
	out := listTagsOutput{Tags: []tagOut{}}
	for _, tg := range t.Tags {
		out.Tags = append(out.Tags, tagOut{Key: tg.Key, Value: tg.Value})
	}
	return out, nil
}

// updateCatalog changes table t's catalog entry with fn (see
// storage.Backend.UpdateTable) and caches the result; a table deleted
// meanwhile is DynamoDB's ResourceNotFoundException, an error of fn is
// returned as it is.
func (e *Engine) updateCatalog(ctx context.Context, t *storage.Table, fn func(t *storage.Table) error) (*storage.Table, error) {
	updated, err := e.store.UpdateTable(ctx, t.Account, t.Name, fn)
	if err != nil {
		return nil, catalogErr(err, t.Name)
	}
	e.remember(updated)
	return updated, nil
}

// catalogErr maps a catalog error for a named table.
func catalogErr(err error, name string) error {
	if err == storage.ErrTableNotFound {
		return errTableNotFound(name)
	}
	return err
}

// The tagging operations' member constraints, checked after a missing
// ResourceArn (requireResourceArn), in DynamoDB's order (validation_tags_test.go
// lists the sources).
var (
	tagResourceRules = rules[tagResourceInput]{
		lengthRule("resourceArn", func(in *tagResourceInput) *string { return in.ResourceArn }, 1, 1283, false),
		required("tags", func(in *tagResourceInput) bool { return in.Tags != nil }),
		func(in *tagResourceInput, c *constraints) {
			for i, tg := range in.Tags {
				tagConstraints(c, tg, "tags."+itoa(i+1)+".member.")
			}
		},
	}
	untagResourceRules = rules[untagResourceInput]{
		lengthRule("resourceArn", func(in *untagResourceInput) *string { return in.ResourceArn }, 1, 1283, false),
		required("tagKeys", func(in *untagResourceInput) bool { return in.TagKeys != nil }),
	}
	listTagsRules = rules[listTagsInput]{
		lengthRule("resourceArn", func(in *listTagsInput) *string { return in.ResourceArn }, 1, 1283, false),
	}
)
