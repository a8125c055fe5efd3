package codex

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// protocolVersion is the codex release whose app-server protocol this package speaks.
const protocolVersion = "0.171.0"

// StartTimeoutError is the error of a start whose codex did not answer initialize within
// Options.StartTimeout: the binary is not codex app-server, or it hangs.
type StartTimeoutError struct {
	Binary  string        // the executable started, "" when the client ran over given pipes
	Timeout time.Duration // Options.StartTimeout
}

func (e *StartTimeoutError) Error() string {
	what := "codex"
	if e.Binary != "" {
		what = "the binary at " + e.Binary
	}
	return fmt.Sprintf("codex did not answer initialize within %v (%s may not be codex app-server %s, or it is hung)",
		e.Timeout, what, protocolVersion)
}

// Unwrap makes the error a context.DeadlineExceeded too, as a start bounded by a context would be.
func (e *StartTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// withStartTimeout returns the context that bounds a start: ctx, further bounded by d when positive.
func withStartTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// startTimedOut reports whether a start failed because its own bound expired, rather than because
// the caller's context ended or codex failed otherwise.
func startTimedOut(ctx, initCtx context.Context) bool {
	return ctx.Err() == nil && errors.Is(initCtx.Err(), context.DeadlineExceeded)
}
