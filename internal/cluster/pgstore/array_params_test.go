package pgstore

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

// TestAUUIDArgumentIsBinaryOnlyForTheFormPostgreSQLPrints: ids in the
// canonical form (either case) are sent as the uuids PostgreSQL would have
// parsed them to; a column holding any id in another form, which the
// server may accept (braces, no hyphens) or refuse, goes as text, as every
// id did before, so the server still decides.
func TestAUUIDArgumentIsBinaryOnlyForTheFormPostgreSQLPrints(t *testing.T) {
	t.Parallel()
	const id = "0193a8a0-5b7c-7def-8a9b-0c1d2e3f4a5b"
	want := [16]byte{0x01, 0x93, 0xa8, 0xa0, 0x5b, 0x7c, 0x7d, 0xef, 0x8a, 0x9b, 0x0c, 0x1d, 0x2e, 0x3f, 0x4a, 0x5b}
	for _, s := range []string{id, strings.ToUpper(id)} {
		u, ok := canonicalUUID(s)
		if !ok || u.Bytes != want || u.String() != id {
			t.Errorf("%q: parsed %v (%x, %s), want %x", s, ok, u.Bytes, u.String(), want)
		}
	}
	for _, s := range []string{"", "{" + id + "}", strings.ReplaceAll(id, "-", ""), id[:35] + "g", id[:8] + "x" + id[9:], id + "0", "not-a-uuid"} {
		if _, ok := canonicalUUID(s); ok {
			t.Errorf("%q parsed as a canonical uuid", s)
		}
	}
	bin, ok := uuidParam([]string{id, id}).(elems[pgtype.UUID])
	if !ok || len(bin) != 2 || bin[0].Bytes != want || !bin[1].Valid {
		t.Errorf("canonical ids: argument %#v, want two binary uuids", bin)
	}
	braced := "{" + id + "}"
	text, ok := uuidParam([]string{id, braced, id}).([]*string)
	if !ok || len(text) != 3 || *text[0] != id || *text[1] != braced || *text[2] != id {
		t.Fatalf("a braced id among canonical ones: argument %#v, want the three ids as text", text)
	}
	c := newUUIDColumn(3)
	c.set(0, nil)
	c.set(1, &braced)
	if text, ok := c.param().([]*string); !ok || text[0] != nil || *text[1] != braced || text[2] != nil {
		t.Errorf("NULL elements around a braced id: argument %#v, want NULL, the id, NULL", c.param())
	}
}

// TestTheAdmissionPayloadsKeepTheirEncoding: the created and queued events'
// payloads, built from structs, are byte for byte the maps they were built
// from before (sorted keys, the same escaping), whatever the strings hold.
func TestTheAdmissionPayloadsKeepTheirEncoding(t *testing.T) {
	t.Parallel()
	for _, odd := range []string{"", `"quoted" \ back`, "<a>&amp;</a>", "ünïcödé \u2028 line", "\x01control"} {
		p := schedule.CommitParams{RunID: "run" + odd, AttemptID: "attempt" + odd}
		p.Ticket.TriggerID, p.Ticket.TriggerRevision, p.Ticket.TaskRevision = "trigger"+odd, 7, 3
		p.Ticket.TriggerContentDigest = "sha256:" + odd
		p.Decision.ScheduledForMs = 1_790_000_000_000
		f := commitFacts{Execution: &task.Execution{ID: "er" + odd, Digest: "digest" + odd}}
		a := admissionOf(p, f)
		created, err := json.Marshal(map[string]any{
			"executionRevisionId":  f.Execution.ID,
			"executionDigest":      f.Execution.Digest,
			"triggerId":            p.Ticket.TriggerID,
			"triggerRevision":      p.Ticket.TriggerRevision,
			"triggerContentDigest": p.Ticket.TriggerContentDigest,
			"taskRevision":         p.Ticket.TaskRevision,
			"scheduledForMs":       p.Decision.ScheduledForMs,
			"idempotencyKey":       schedule.IdempotencyKey(p.Ticket.TriggerID, p.Ticket.TriggerRevision, p.Decision.ScheduledForMs),
		})
		if err != nil {
			t.Fatal(err)
		}
		queued, err := json.Marshal(map[string]any{"attemptId": p.AttemptID, "attempt": 1, "executor": string(task.RemoteWorker)})
		if err != nil {
			t.Fatal(err)
		}
		if string(a.created) != string(created) || string(a.queued) != string(queued) {
			t.Errorf("%q:\ncreated %s\n   want %s\nqueued %s\n  want %s", odd, a.created, created, a.queued, queued)
		}
	}
}
