package schedule

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"math"
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
	h.Write([]byte{0})
	// Writes to a hash never fail.
	_ = binary.Write(h, binary.BigEndian, scheduledMs)
	var v int64
	_ = binary.Read(bytes.NewReader(h.Sum(nil)[:8]), binary.BigEndian, &v)
	return (v & math.MaxInt64) % jitterMs
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
