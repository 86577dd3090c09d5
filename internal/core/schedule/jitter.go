package schedule

import (
	"crypto/sha256"
	"encoding/binary"
)

// JitterOffset is the delay, in [0, jitterMs), of the occurrence of
// triggerID nominally scheduled at scheduledMs. It is a hash of the two,
// never a random draw: every replica, and a decision re-derived at commit
// or retried after a lost reply, computes the same instant. 0 without
// jitter.
func JitterOffset(triggerID string, scheduledMs, jitterMs int64) int64 {
	if jitterMs <= 0 {
		return 0
	}
	h := sha256.New()
	h.Write([]byte("qinglong-jitter-v1\x00"))
	h.Write([]byte(triggerID))
	var at [9]byte
	binary.BigEndian.PutUint64(at[1:], uint64(scheduledMs))
	h.Write(at[:])
	sum := h.Sum(nil)
	return int64(binary.BigEndian.Uint64(sum[:8]) % uint64(jitterMs))
}

// FireAt is the jittered due time of a nominal occurrence of the trigger a
// ticket stands for: the instant its row is claimed at and the due time its
// Run records. Misfire grace and the catch-up window are measured from it.
func FireAt(triggerID string, scheduledMs, jitterMs int64) int64 {
	return scheduledMs + JitterOffset(triggerID, scheduledMs, jitterMs)
}

func fireAt(in Input, scheduledMs int64) int64 {
	return FireAt(in.TriggerID, scheduledMs, in.JitterMs)
}
