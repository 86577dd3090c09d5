package task

import "slices"

// Retry outcomes: the ends of an attempt a retry policy may name.
const (
	RetryOnLost     = "lost"
	RetryOnFailed   = "failed"
	RetryOnTimedOut = "timed_out"
)

// Retry policy limits.
const (
	MaxRetryAttempts  = 100
	MaxRetryBackoffMs = int64(24 * 3600 * 1000)
)

// RetryPolicy says whether a cluster Run gets another Attempt after one
// ended: at most MaxAttempts attempts in all, each next one BackoffMs after
// the previous ended, and only after the outcomes in On. The zero value
// means no retry. It is part of the command, so of the execution revision
// and its digest: a Run keeps the policy it was admitted with.
type RetryPolicy struct {
	MaxAttempts int
	BackoffMs   int64
	On          []string
}

// Allows reports whether an attempt numbered number (1-based) that ended
// with outcome may be followed by another.
func (p RetryPolicy) Allows(outcome string, number int) bool {
	return number < p.MaxAttempts && slices.Contains(p.On, outcome)
}

// Placement restricts which workers may run a command: a worker qualifies
// when its labels contain every label here. Empty means any worker.
type Placement struct {
	Labels map[string]string
}
