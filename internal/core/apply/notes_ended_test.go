package apply

import (
	"strings"
	"testing"
)

// A trigger whose endAt comes before its next occurrence is published
// ended and fires no more: the apply notes it, naming its endAt, as it
// refuses an expression that never matches. One with an occurrence left,
// one without endAt and a disabled one get no note.
func TestATriggerWithNoOccurrenceLeftBeforeItsEndAtGetsANote(t *testing.T) {
	t.Parallel()
	doc, err := Parse("x.yaml", []byte(`project: demo
tasks:
  - {name: t, script: echo}
triggers:
  - {name: past, task: t, cron: '* * * * *', timezone: UTC, endAt: '2020-01-01T00:00:00Z'}
  - {name: window-missed, task: t, cron: '0 9 * * *', timezone: UTC, startAt: '2026-06-01T10:00:00Z', endAt: '2026-06-01T12:00:00Z'}
  - {name: later, task: t, cron: '* * * * *', timezone: UTC, endAt: '2030-01-01T00:00:00Z'}
  - {name: open, task: t, cron: '* * * * *', timezone: UTC}
  - {name: off, task: t, cron: '* * * * *', timezone: UTC, endAt: '2020-01-01T00:00:00Z', enabled: false}
`))
	if err != nil {
		t.Fatal(err)
	}
	const now = 1_780_000_000_000 // 2026-05-28
	n, ok := EndedNote(doc, now)
	want := "(triggers: past (endAt 2020-01-01T00:00:00Z), window-missed (endAt 2026-06-01T12:00:00Z))"
	if !ok || !strings.HasSuffix(n.String(), want) || !strings.Contains(n.String(), "fire no more") {
		t.Fatalf("note %q (%t); want one saying they fire no more and ending %q", n.String(), ok, want)
	}
	var reasons []NoteReason
	for _, m := range Notes(doc, NoteScope{RunsHere: true, NowMs: now}) {
		reasons = append(reasons, m.Reason)
	}
	if len(reasons) != 1 || reasons[0] != NoteEndedTriggers {
		t.Errorf("the file's notes %v; want the ended note among them, once", reasons)
	}
}
