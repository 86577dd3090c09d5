package cli

import (
	"context"
	"io"
	"time"

	"github.com/qinglong/qinglong/internal/core/logtail"
)

// tailSourceOf reads the last lines of a log where src reads it: over the
// API the server finds them (one request, ?tail=N), on the database this
// command does, reading the log backwards from its end a window at a time,
// each read given limit; either way the rest of the log is never read.
func tailSourceOf(b *Backend, limit time.Duration, src logSource) tailSource {
	if b.api != nil {
		return b.api.readRunLogTail
	}
	return func(ctx context.Context, at attemptRef, lines int, w io.Writer) (int64, bool, error) {
		read := func(ctx context.Context, offset, max int64, w io.Writer) (next int64, err error) {
			err = within(ctx, limit, "the database", func(ctx context.Context) (err error) {
				next, _, err = b.ReadLog(ctx, at.id, offset, max, w)
				return err
			})
			return next, err
		}
		size, err := logtail.Length(ctx, read)
		if err != nil {
			return 0, false, err
		}
		start, err := logtail.Start(ctx, read, size, lines)
		if err != nil {
			return 0, false, err
		}
		return src(ctx, at, start, w)
	}
}
