package run

// CancelCameFirst reports whether a cancel asked of a running attempt at
// cancelAtMs (nil: none was asked) decides how the attempt ends over its
// deadline at deadlineAtMs (nil: it has none), both in the store's time:
// it does when it was asked before the deadline passed. A cancel asked at
// or after the deadline found the command already timed out, so the
// attempt and its Run end timed_out, as they would have without it; the
// cancel still keeps a retry from following. Both profiles decide every
// end of an attempt with it (a completion, a lease that ran out, a
// standalone command's result), so the same situation reads the same.
func CancelCameFirst(cancelAtMs, deadlineAtMs *int64) bool {
	return cancelAtMs != nil && (deadlineAtMs == nil || *cancelAtMs < *deadlineAtMs)
}

// EndAfterCancel is the end an attempt that ended with end gives its
// Run when a cancel may have been asked: cancelled when one was asked
// before the deadline passed, or when the attempt was lost (nobody knows
// when its command ended, so the intent wins); end otherwise — a
// timed-out attempt whose deadline passed before the cancel keeps its Run
// timed_out. Either way a Run a cancel was asked of is not retried.
func EndAfterCancel(end AttemptState, cancelAtMs, deadlineAtMs *int64) AttemptState {
	if cancelAtMs != nil && (end == AttemptLost || CancelCameFirst(cancelAtMs, deadlineAtMs)) {
		return AttemptCancelled
	}
	return end
}

// CancelDecidesResult reports whether a cancel decides how an attempt
// whose command ended at endedAtMs (in the store's time: when its runner
// saw it end, however late the store takes its result) is recorded: it
// must have come before the deadline passed (CancelCameFirst) and no
// later than the command ended. A cancel asked after the command had
// ended, while its result was still on its way to the store (a full disk,
// a replica the worker could not reach), had nothing to cancel: the
// command's own result is recorded, and the cancel still keeps a retry
// from following.
func CancelDecidesResult(cancelAtMs, deadlineAtMs *int64, endedAtMs int64) bool {
	return CancelCameFirst(cancelAtMs, deadlineAtMs) && *cancelAtMs <= endedAtMs
}
