package pgstore

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

// payloadStrings are the strings the encoders are held to json.Marshal
// with: empty; every byte alone (the control characters, the quote and
// backslash, the HTML characters, DEL, every byte of invalid UTF-8); runes
// of every width, U+2028 and U+2029 and the replacement character itself;
// invalid and truncated sequences and encoded surrogates amid valid text;
// and random mixtures of all of these from a fixed seed.
func payloadStrings() []string {
	out := []string{"", "0193a8a0-5b7c-7def-8a9b-0c1d2e3f4a5b", "sha256:" + strings.Repeat("ab", 32), "ql3:cron:v1:t:1:2"}
	for b := range 256 {
		out = append(out, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"z")
	}
	for _, r := range []rune{0x7f, 0x80, 0xe9, 0x7ff, 0x800, 0x2027, 0x2028, 0x2029, 0x202a, 0xfeff, 0xfffd, 0xffff, 0x10000, 0x1f600, utf8.MaxRune} {
		out = append(out, string(r), "x"+string(r)+"<&>"+string(r))
	}
	odd := []string{"\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "\xff\xfe", "a\xe2\x80b", "\u2028\xe2\x80\xa8\xe2\x80"}
	out = append(out, odd...)
	pieces := append([]string{"a", "Z", " ", "\"", "\\", "/", "<", ">", "&", "\n", "\t", "\b", "\f", "\r", "\x00", "\x1f", "\x7f",
		"é", "中文", "ünïcödé", "\u2028", "\u2029", "\ufffd", "😀"}, odd...)
	rng := rand.New(rand.NewPCG(67, 13))
	for range 4000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		out = append(out, b.String())
	}
	return out
}

// TestTheAdmissionPayloadEncodersWriteWhatJSONMarshalWrites: the created
// and queued payloads appended by hand are json.Marshal's text of the same
// structs byte for byte, whatever their strings and numbers hold, and
// appending after other text leaves that text as it was.
func TestTheAdmissionPayloadEncodersWriteWhatJSONMarshalWrites(t *testing.T) {
	t.Parallel()
	strs := payloadStrings()
	nums := []int64{0, 1, -1, 7, 1_790_000_000_000, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32}
	rng := rand.New(rand.NewPCG(13, 67))
	pick := func() string { return strs[rng.IntN(len(strs))] }
	num := func() int64 {
		if rng.IntN(2) == 0 {
			return nums[rng.IntN(len(nums))]
		}
		return rng.Int64() - rng.Int64()
	}
	check := func(what string, v any, got []byte) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s %#v:\n got %q\nwant %q", what, v, got, want)
		}
	}
	prefix := []byte(`{"before":1}`)
	for i, s := range strs {
		// Every string once in every field, the others random.
		c := createdPayload{ExecutionDigest: s, ExecutionRevisionID: pick(), IdempotencyKey: pick(), ScheduledForMs: num(),
			TaskRevision: num(), TriggerContentDigest: pick(), TriggerID: pick(), TriggerRevision: num()}
		switch i % 5 {
		case 1:
			c.ExecutionDigest, c.ExecutionRevisionID = c.ExecutionRevisionID, s
		case 2:
			c.ExecutionDigest, c.IdempotencyKey = c.IdempotencyKey, s
		case 3:
			c.ExecutionDigest, c.TriggerContentDigest = c.TriggerContentDigest, s
		case 4:
			c.ExecutionDigest, c.TriggerID = c.TriggerID, s
		}
		check("created", c, c.appendJSON(nil))
		q := queuedPayload{Attempt: int(num()), AttemptID: s, Executor: pick()}
		check("queued", q, q.appendJSON(nil))
		if i%2 == 0 {
			q.AttemptID, q.Executor = q.Executor, s
			check("queued", q, q.appendJSON(nil))
		}
		after := c.appendJSON(append([]byte(nil), prefix...))
		if !bytes.HasPrefix(after, prefix) {
			t.Fatalf("appending the created payload changed the text before it: %q", after)
		}
		check("created after other text", c, after[len(prefix):])
	}
}

// TestAPagesAdmissionTextsAreEachAdmissionsOwn: the keys and payloads a
// page lays out in one buffer per kind are, for each admission among its
// decisions, the texts admissionOf makes for that admission alone, NULL
// for a decision that admits nothing, and no payload's slice can reach
// into the next one's.
func TestAPagesAdmissionTextsAreEachAdmissionsOwn(t *testing.T) {
	t.Parallel()
	strs := payloadStrings()
	var group []schedule.CommitParams
	var facts pageLock
	for i := range 300 {
		s := strs[(i*37)%len(strs)]
		var p schedule.CommitParams
		p.Ticket.TriggerID, p.Ticket.TriggerRevision, p.Ticket.TaskRevision = "trigger"+s, int64(i), int64(3*i)
		p.Ticket.TriggerContentDigest = "sha256:" + s
		p.Decision.ScheduledForMs = 1_790_000_000_000 + int64(i)*60_000
		p.RunID, p.AttemptID = "run"+s, "attempt"+s
		if i%4 != 3 {
			p.Decision.Action = schedule.Admit
		}
		group = append(group, p)
		facts = append(facts, pageFacts{commitFacts: commitFacts{Execution: &task.Execution{ID: "er" + s, Digest: "digest" + s}}, locked: true})
	}
	// The page writes the decisions in write's order, which need not be
	// the group's.
	write := make([]int, 0, len(group))
	for i := len(group) - 1; i >= 0; i -= 2 {
		write = append(write, i)
	}
	for i := 0; i < len(group); i += 2 {
		write = append(write, i)
	}
	keys, created, queued := pageAdmissionTexts(group, write, facts)
	if len(keys) != len(write) || len(created) != len(write) || len(queued) != len(write) {
		t.Fatalf("%d decisions: %d keys, %d created, %d queued", len(write), len(keys), len(created), len(queued))
	}
	for k, i := range write {
		if group[i].Decision.Action != schedule.Admit {
			if keys[k].Valid || created[k] != nil || queued[k] != nil {
				t.Errorf("decision %d admits nothing, but has key %v, created %q, queued %q", i, keys[k], created[k], queued[k])
			}
			continue
		}
		a := admissionOf(group[i], facts[i].commitFacts)
		if !keys[k].Valid || keys[k].String != a.key {
			t.Errorf("decision %d: key %v, want %q", i, keys[k], a.key)
		}
		if !bytes.Equal(created[k], a.created) || !bytes.Equal(queued[k], a.queued) {
			t.Errorf("decision %d:\ncreated %q\n   want %q\nqueued %q\n  want %q", i, created[k], a.created, queued[k], a.queued)
		}
		if cap(created[k]) != len(created[k]) || cap(queued[k]) != len(queued[k]) {
			t.Errorf("decision %d: payload capacities %d and %d reach past their lengths %d and %d", i, cap(created[k]), cap(queued[k]), len(created[k]), len(queued[k]))
		}
	}
}

// BenchmarkAdmissionPayloads compares, per admission of a page of 256,
// the created and queued payloads encoded by json.Marshal (as they were)
// with the page's appended texts (pageAdmissionTexts, with the keys).
//
//	go test ./internal/cluster/pgstore -run '^$' -bench 'BenchmarkAdmissionPayloads' -benchmem
func BenchmarkAdmissionPayloads(b *testing.B) {
	const n = 256
	group := make([]schedule.CommitParams, n)
	facts := make(pageLock, n)
	write := make([]int, n)
	for i := range group {
		p := &group[i]
		p.Ticket.TriggerID, p.Ticket.TriggerRevision, p.Ticket.TaskRevision = ids.New(), 3, 2
		p.Ticket.TriggerContentDigest = "sha256:" + strings.Repeat("7e", 32)
		p.Decision.Action, p.Decision.ScheduledForMs = schedule.Admit, 1_790_000_000_000+int64(i)*60_000
		p.RunID, p.AttemptID = ids.New(), ids.New()
		facts[i] = pageFacts{commitFacts: commitFacts{Execution: &task.Execution{
			ID: task.ExecutionID(2, "sha256:"+strings.Repeat("c4", 32)), Digest: "sha256:" + strings.Repeat("9a", 32)}}, locked: true}
		write[i] = i
	}
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			for i, p := range group {
				key := schedule.IdempotencyKey(p.Ticket.TriggerID, p.Ticket.TriggerRevision, p.Decision.ScheduledForMs)
				created, err := json.Marshal(createdOf(p, facts[i].commitFacts, key))
				if err != nil {
					b.Fatal(err)
				}
				queued, err := json.Marshal(firstQueued(p.AttemptID))
				if err != nil || len(created) == 0 || len(queued) == 0 {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/admission")
	})
	b.Run("page", func(b *testing.B) {
		for b.Loop() {
			if keys, _, _ := pageAdmissionTexts(group, write, facts); len(keys) != n {
				b.Fatal(len(keys))
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/admission")
	})
}
