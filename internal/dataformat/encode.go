package dataformat

// Writers of export data files: DYNAMODB_JSON (this file) and ION
// (encode_ion.go), gzipped, with the counts and checksums their
// manifest-files.json line needs (encode_file.go). See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html

import (
	"fmt"
	"io"
	"strconv"

	"github.com/extenddb/extenddb/internal/item"
)

// Record is one record (line) of an export data file. A full export's
// record has Item. An incremental export's has Keys, the time of the
// item's last write in the export period and, depending on the change
// and the view type, NewImage (absent when the item was deleted) and
// OldImage (absent when the item was created, or with NEW_IMAGE).
type Record struct {
	Item                 item.Item
	Keys                 item.Item
	NewImage             item.Item
	OldImage             item.Item
	WriteTimestampMicros int64
}

// Incremental reports whether r is a change record of an incremental
// export.
func (r *Record) Incremental() bool { return r.Keys != nil }

// Encoder writes the records of one data file, one line each.
type Encoder interface {
	Encode(r *Record) error
}

// NewEncoder returns the encoder of format ("DYNAMODB_JSON" or "ION")
// writing to w. Errors: an unknown format.
func NewEncoder(format string, w io.Writer) (Encoder, error) {
	switch format {
	case "DYNAMODB_JSON":
		return &jsonEncoder{w: w}, nil
	case "ION":
		return &ionEncoder{w: w}, nil
	}
	return nil, fmt.Errorf("dataformat: unknown export format %q", format)
}

// jsonEncoder writes DYNAMODB_JSON lines: {"Item":{...}} for a full
// export, {"Metadata":{"WriteTimestampMicros":{"N":"..."}},"Keys":{...},
// "NewImage":{...},"OldImage":{...}} for an incremental one, items in
// DynamoDB JSON.
type jsonEncoder struct {
	w   io.Writer
	buf []byte
}

func (e *jsonEncoder) Encode(r *Record) error {
	b := e.buf[:0]
	if !r.Incremental() {
		b = append(b, `{"Item":`...)
		b = item.AppendItemJSON(b, r.Item)
	} else {
		b = append(b, `{"Metadata":{"WriteTimestampMicros":{"N":"`...)
		b = strconv.AppendInt(b, r.WriteTimestampMicros, 10)
		b = append(b, `"}},"Keys":`...)
		b = item.AppendItemJSON(b, r.Keys)
		if r.NewImage != nil {
			b = append(b, `,"NewImage":`...)
			b = item.AppendItemJSON(b, r.NewImage)
		}
		if r.OldImage != nil {
			b = append(b, `,"OldImage":`...)
			b = item.AppendItemJSON(b, r.OldImage)
		}
	}
	b = append(b, "}\n"...)
	e.buf = b
	_, err := e.w.Write(b)
	return err
}
