package redis

import (
	"context"

	"github.com/redis/rueidis"
)

// Checkpoint reads what a source recorded about one item after its last complete ingest (ok false when
// nothing was), such as the hash and validators of a company's SEC submissions.
func (s *IngestStore) Checkpoint(ctx context.Context, source, item string) (string, bool, error) {
	v, err := s.c.Do(ctx, s.c.B().Hget().Key(checkpointsKey(source)).Field(item).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return "", false, nil
	}
	return v, err == nil, err
}

// PutCheckpoint records an item's checkpoint; the source writes it only once the item is fully
// ingested, so an item that failed is retried on the next run.
func (s *IngestStore) PutCheckpoint(ctx context.Context, source, item, value string) error {
	return s.c.Do(ctx, s.c.B().Hset().Key(checkpointsKey(source)).FieldValue().FieldValue(item, value).Build()).Error()
}
