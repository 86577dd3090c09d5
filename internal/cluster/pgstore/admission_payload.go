package pgstore

import (
	"strconv"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

// The created and queued events' payloads are appended by hand rather than
// by json.Marshal, which boxes its argument and returns a fresh slice: two
// allocations a payload, four an admission, where a page now writes the
// payloads of all its admissions into one buffer (pageAdmissionTexts). The
// text is json.Marshal's of the same structs byte for byte, whatever the
// strings hold (admission_payload_test.go holds the two to each other): the
// keys in the order of their names, each string escaped as encoding/json
// escapes it.

// createdPayload is the payload of an admitted Run's created event. Its
// fields are in the order of their names, so it encodes to the same text
// as the map of the same keys the payload once was (encoding/json sorts a
// map's keys).
type createdPayload struct {
	ExecutionDigest      string `json:"executionDigest"`
	ExecutionRevisionID  string `json:"executionRevisionId"`
	IdempotencyKey       string `json:"idempotencyKey"`
	ScheduledForMs       int64  `json:"scheduledForMs"`
	TaskRevision         int64  `json:"taskRevision"`
	TriggerContentDigest string `json:"triggerContentDigest"`
	TriggerID            string `json:"triggerId"`
	TriggerRevision      int64  `json:"triggerRevision"`
}

// appendJSON appends json.Marshal(c)'s text to dst.
func (c *createdPayload) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"executionDigest":`...)
	dst = appendJSONString(dst, c.ExecutionDigest)
	dst = append(dst, `,"executionRevisionId":`...)
	dst = appendJSONString(dst, c.ExecutionRevisionID)
	dst = append(dst, `,"idempotencyKey":`...)
	dst = appendJSONString(dst, c.IdempotencyKey)
	dst = append(dst, `,"scheduledForMs":`...)
	dst = strconv.AppendInt(dst, c.ScheduledForMs, 10)
	dst = append(dst, `,"taskRevision":`...)
	dst = strconv.AppendInt(dst, c.TaskRevision, 10)
	dst = append(dst, `,"triggerContentDigest":`...)
	dst = appendJSONString(dst, c.TriggerContentDigest)
	dst = append(dst, `,"triggerId":`...)
	dst = appendJSONString(dst, c.TriggerID)
	dst = append(dst, `,"triggerRevision":`...)
	dst = strconv.AppendInt(dst, c.TriggerRevision, 10)
	return append(dst, '}')
}

// queuedPayload is the payload of an admitted Run's queued event, its
// fields in name order as createdPayload's.
type queuedPayload struct {
	Attempt   int    `json:"attempt"`
	AttemptID string `json:"attemptId"`
	Executor  string `json:"executor"`
}

// appendJSON appends json.Marshal(q)'s text to dst.
func (q *queuedPayload) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"attempt":`...)
	dst = strconv.AppendInt(dst, int64(q.Attempt), 10)
	dst = append(dst, `,"attemptId":`...)
	dst = appendJSONString(dst, q.AttemptID)
	dst = append(dst, `,"executor":`...)
	dst = appendJSONString(dst, q.Executor)
	return append(dst, '}')
}

// firstQueued is the queued payload of an admission's Attempt 1.
func firstQueued(attemptID string) queuedPayload {
	return queuedPayload{Attempt: 1, AttemptID: attemptID, Executor: string(task.RemoteWorker)}
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as json.Marshal encodes a string: quoted;
// '"' and '\\' escaped with a backslash, as are the control characters
// with a short escape (\b \f \n \r \t); the other control characters and
// '<', '>' and '&' (json.Marshal escapes HTML) as \u00XX; U+2028 and
// U+2029 as \u2028 and \u2029; each byte of invalid UTF-8 as \ufffd.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Room a page's buffers start with per admission: a key of a UUID trigger
// id is about 70 bytes; a created payload of UUIDs and sha256 digests about
// 500 and a queued one about 90. A longer text only grows the buffer, but
// a buffer that grows leaves what it had to the collector: with room a
// few bytes short, a page allocated more bytes than json.Marshal did.
const (
	keyRoom     = 80
	payloadRoom = 640
)

// pageAdmissionTexts are the idempotency keys and the created and queued
// payloads of the admissions among group[write...], by position in write
// (NULL for a decision that is not an admission): the same texts as
// admissionOf's for each, laid out in one buffer per kind for the page and
// each row's a slice of it, where a string and two encodings of its own
// cost every admission at least three allocations.
func pageAdmissionTexts(group []schedule.CommitParams, write []int, facts pageLock) (keys elems[pgtype.Text], created, queued jsonElems) {
	n := len(write)
	keys, created, queued = make(elems[pgtype.Text], n), make(jsonElems, n), make(jsonElems, n)
	// ends[3k], ends[3k+1], ends[3k+2]: where the k-th decision's key,
	// created and queued payloads end in their buffers (a row without an
	// admission ends where the one before it did).
	ends := make([]int, 3*n)
	admits := func(i int) bool { return group[i].Decision.Action == schedule.Admit }
	count := 0
	for _, i := range write {
		if admits(i) {
			count++
		}
	}
	kb := make([]byte, 0, count*keyRoom)
	for k, i := range write {
		if tk := group[i].Ticket; admits(i) {
			kb = schedule.AppendIdempotencyKey(kb, tk.TriggerID, tk.TriggerRevision, group[i].Decision.ScheduledForMs)
		}
		ends[3*k] = len(kb)
	}
	// One string for every key: a key is a substring of it.
	text := string(kb)
	pb := make([]byte, 0, count*payloadRoom)
	start := 0
	for k, i := range write {
		if admits(i) {
			keys[k] = pgtype.Text{String: text[start:ends[3*k]], Valid: true}
			c, q := createdOf(group[i], facts[i].commitFacts, keys[k].String), firstQueued(group[i].AttemptID)
			pb = c.appendJSON(pb)
			ends[3*k+1] = len(pb)
			pb = q.appendJSON(pb)
		}
		ends[3*k+2] = len(pb)
		start = ends[3*k]
	}
	// The payloads are sliced once the buffer has stopped growing; each
	// slice's capacity ends with it, so nothing appended to one can reach
	// the next.
	start = 0
	for k, i := range write {
		if admits(i) {
			mid, end := ends[3*k+1], ends[3*k+2]
			created[k], queued[k] = pb[start:mid:mid], pb[mid:end:end]
		}
		start = ends[3*k+2]
	}
	return keys, created, queued
}
