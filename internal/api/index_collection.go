package api

import (
	"math"
	"strconv"
)

// Item collections of tables with local secondary indexes: the items that
// share a partition key, with their local index rows. DynamoDB limits one
// collection to 10 GB and reports its size in ItemCollectionMetrics.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.ItemCollections
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ItemCollectionMetrics.html

// appendSizeEstimate appends SizeEstimateRangeGB for a collection of n
// bytes: the whole gigabytes below and above it, as DynamoDB reports for
// small collections ([0.0,1.0]).
func appendSizeEstimate(dst []byte, n int64) []byte {
	lo := math.Floor(float64(n) / (1 << 30))
	dst = append(dst, '[')
	dst = strconv.AppendFloat(dst, lo, 'f', 1, 64)
	dst = append(dst, ',')
	dst = strconv.AppendFloat(dst, lo+1, 'f', 1, 64)
	return append(dst, ']')
}
