package console

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
)

// tailLimit is GetRecords' Limit per shard and poll of the stream tail.
const tailLimit = 100

// tailRecord is one stream record as the tail page shows it.
type tailRecord struct {
	EventName string `json:"eventName"`
	Sequence  string `json:"sequence"`
	Keys      string `json:"keys"`
	NewImage  string `json:"newImage,omitempty"`
	OldImage  string `json:"oldImage,omitempty"`
}

// tailAnswer is the JSON the tail page polls for. Cursor maps each shard
// seen to its next iterator ("" once the shard is closed and read).
type tailAnswer struct {
	Cursor  string       `json:"cursor"`
	Records []tailRecord `json:"records"`
	Error   string       `json:"error,omitempty"`
}

// serveStreamRecords reads what the table's stream holds after the
// cursor the page sent (?cursor=; none on the first poll, which starts at
// the end of every shard, or at its start with ?from=oldest) and answers
// the records and the next cursor.
func (c *Console) serveStreamRecords(w http.ResponseWriter, r *http.Request, s *session, name string) {
	ans := tailAnswer{Records: []tailRecord{}}
	cursor := map[string]string{}
	first := true
	if raw, err := base64.RawURLEncoding.DecodeString(r.URL.Query().Get("cursor")); err == nil && len(raw) > 0 {
		first = json.Unmarshal(raw, &cursor) != nil
	}
	if err := c.tail(r, s, name, cursor, first && r.URL.Query().Get("from") != "oldest", &ans); err != nil {
		ans.Error = err.Error()
	}
	raw, _ := json.Marshal(cursor)
	ans.Cursor = base64.RawURLEncoding.EncodeToString(raw)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(ans)
}

// tail advances cursor over every shard of the table's latest stream,
// appending what it reads to ans. latest starts new shards at their end.
func (c *Console) tail(r *http.Request, s *session, name string, cursor map[string]string, latest bool, ans *tailAnswer) error {
	t, err := c.describe(r, s, name)
	if err != nil {
		return err
	}
	if t.LatestStreamArn == "" {
		return &apiError{Name: "Stream", Message: "Streams are not enabled on table " + name + "."}
	}
	var desc struct {
		StreamDescription struct {
			Shards []struct {
				ShardId             string
				SequenceNumberRange struct{ EndingSequenceNumber string }
			}
		}
	}
	if err := c.callService(r.Context(), s, "DynamoDBStreams", "DescribeStream", map[string]any{"StreamArn": t.LatestStreamArn}, &desc); err != nil {
		return err
	}
	for _, sh := range desc.StreamDescription.Shards {
		it, seen := cursor[sh.ShardId]
		if seen && it == "" {
			continue
		}
		if !seen {
			typ := "TRIM_HORIZON"
			if latest {
				typ = "LATEST"
			}
			var out struct{ ShardIterator string }
			in := map[string]any{"StreamArn": t.LatestStreamArn, "ShardId": sh.ShardId, "ShardIteratorType": typ}
			if err := c.callService(r.Context(), s, "DynamoDBStreams", "GetShardIterator", in, &out); err != nil {
				return err
			}
			it = out.ShardIterator
		}
		next, err := c.readShard(r, s, it, ans)
		if err != nil {
			return err
		}
		cursor[sh.ShardId] = next
	}
	return nil
}

// readShard reads one page of a shard and returns the next iterator.
func (c *Console) readShard(r *http.Request, s *session, it string, ans *tailAnswer) (string, error) {
	var out struct {
		Records []struct {
			EventName string `json:"eventName"`
			Dynamodb  struct {
				Keys           map[string]any
				NewImage       map[string]any
				OldImage       map[string]any
				SequenceNumber string
			} `json:"dynamodb"`
		}
		NextShardIterator string
	}
	if err := c.callService(r.Context(), s, "DynamoDBStreams", "GetRecords", map[string]any{"ShardIterator": it, "Limit": tailLimit}, &out); err != nil {
		return it, err
	}
	for _, rec := range out.Records {
		tr := tailRecord{EventName: rec.EventName, Sequence: rec.Dynamodb.SequenceNumber, Keys: compact(plainItem(rec.Dynamodb.Keys))}
		if rec.Dynamodb.NewImage != nil {
			tr.NewImage = compact(plainItem(rec.Dynamodb.NewImage))
		}
		if rec.Dynamodb.OldImage != nil {
			tr.OldImage = compact(plainItem(rec.Dynamodb.OldImage))
		}
		ans.Records = append(ans.Records, tr)
	}
	return out.NextShardIterator, nil
}
