package childproto

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/throttlebench/throttlebench/internal/bench"
)

// serveInstance is an instance's side after go: the cold start, ready,
// then every request on a goroutine of its own, at most init.Concurrency
// at once (one beyond waits for a slot), until the parent closes the
// input. Replies go out as requests finish, one writer at a time.
func serveInstance(ctx context.Context, init bench.InstanceInit, in *bufio.Reader, enc *json.Encoder) error {
	ready, err := bench.ColdStart(ctx, init)
	if err != nil {
		return reply(enc, err)
	}
	var mu sync.Mutex
	send := func(m Message) error {
		mu.Lock()
		defer mu.Unlock()
		return enc.Encode(m)
	}
	if err := send(Message{Type: TypeReady, Ready: &ready}); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	slots := make(chan struct{}, max(init.Concurrency, 1))
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		line, err := in.ReadBytes('\n')
		if err == io.EOF && len(line) == 0 {
			return nil // retired: the requests in flight finish first
		}
		if err != nil {
			return errorf(KindInterrupted, "the parent closed the control pipe in the middle of a request")
		}
		m, err := decode(line, TypeRequest)
		if err != nil {
			cancel()
			wg.Wait()
			mu.Lock()
			defer mu.Unlock()
			return reply(enc, err)
		}
		r := *m.Request
		wg.Go(func() {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-slots }()
			rep, err := bench.Serve(ctx, init, r)
			if err != nil {
				mu.Lock()
				defer mu.Unlock()
				reply(enc, err)
				return
			}
			send(Message{Type: TypeReply, Reply: &rep})
		})
	}
}
