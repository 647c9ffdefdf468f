package triggers

import (
	"encoding/json"
	"fmt"
)

// Record is one record of the event a webhook receives: a DynamoDB
// Streams record (as GetRecords returns it) with the stream's ARN, as in
// the event AWS Lambda receives from DynamoDB:
//
//	{"Records":[{"eventID","eventName","eventVersion":"1.1",
//	  "eventSource":"aws:dynamodb","awsRegion","dynamodb":{...,
//	  "SequenceNumber","SizeBytes","StreamViewType"},"eventSourceARN"}]}
//
// https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html
type Record struct {
	EventID        string          `json:"eventID"`
	EventName      string          `json:"eventName"`
	EventVersion   string          `json:"eventVersion"`
	EventSource    string          `json:"eventSource"`
	AwsRegion      string          `json:"awsRegion"`
	Dynamodb       json.RawMessage `json:"dynamodb"`
	UserIdentity   json.RawMessage `json:"userIdentity,omitempty"`
	EventSourceARN string          `json:"eventSourceARN"`

	seq     string  // dynamodb.SequenceNumber
	created float64 // dynamodb.ApproximateCreationDateTime, epoch seconds
}

// Event is the body of one POST to a webhook.
type Event struct {
	Records []Record
}

// parse reads the record's sequence number and creation time.
func (r *Record) parse() error {
	var d struct {
		SequenceNumber              string
		ApproximateCreationDateTime float64
	}
	if err := json.Unmarshal(r.Dynamodb, &d); err != nil || d.SequenceNumber == "" {
		return fmt.Errorf("stream record %s has no sequence number", r.EventID)
	}
	r.seq, r.created = d.SequenceNumber, d.ApproximateCreationDateTime
	return nil
}
