package s3store_test

import (
	"context"
	"fmt"
	"log"
	"sync/atomic"

	"github.com/s3bulk/s3bulk/store"
	"github.com/s3bulk/s3bulk/store/s3store"
)

// A run makes one client, with its hooks, and a Store per bucket.
func Example() {
	ctx := context.Background()
	var throttled atomic.Int64
	client, err := s3store.NewClient(ctx, s3store.Config{
		Concurrency: 256,
		OnThrottle:  func() { throttled.Add(1) }, // shrink the run's concurrency here
	})
	if err != nil {
		log.Fatal(err) // errors.Is(err, store.ErrInvalidCredentials) when none are found
	}
	bucket := client.Bucket("my-bucket")
	err = bucket.List(ctx, "logs/", "", func(o store.Object) error {
		fmt.Println(o.Key, o.Size)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
}
