package httpapi

import (
	"context"
	"io"
	"math"

	"github.com/qinglong/qinglong/internal/core/logtail"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalLogTailWithOffset is the reason of a log request giving both
// ?tail and ?offset: the tail says where the answer starts, so an offset
// would contradict it.
const RefusalLogTailWithOffset qlerror.Reason = "log_tail_with_offset"

// tailParam is ?tail=N, the last N lines of the log (0 when left out),
// refused outside 1 to logtail.MaxLines or beside ?offset.
func tailParam(q map[string]string) (int, error) {
	if _, ok := q["tail"]; !ok {
		return 0, nil
	}
	if _, both := q["offset"]; both {
		return 0, qlerror.New(qlerror.Invalid, "tail and offset were both given: tail answers the log's last lines from where they begin, "+
			"offset from a byte; ask with tail for the last lines, then go on with the offset its answer's Ql-Log-Offset gives").Because(RefusalLogTailWithOffset)
	}
	// Any whole number is read, so that 0 and a negative count are
	// refused as the flag's are, saying the range.
	n, err := wholeParam(q, "tail", math.MinInt64, "a line count from 1 to 10000")
	if err != nil {
		return 0, err
	}
	if err := logtail.CheckLines("query parameter tail", n); err != nil {
		return 0, err
	}
	return int(n), nil
}

// tailStart is where the last n lines of attempt attemptID's log begin,
// found by reading the log backwards from its end a window at a time.
func (a *api) tailStart(ctx context.Context, attemptID string, n int) (int64, error) {
	read := func(ctx context.Context, offset, max int64, w io.Writer) (int64, error) {
		next, _, err := a.ReadLog(ctx, attemptID, offset, max, w)
		return next, err
	}
	size, err := logtail.Length(ctx, read)
	if err != nil {
		return 0, err
	}
	return logtail.Start(ctx, read, size, n)
}
