package schedule

import (
	"testing"

	"github.com/qinglong/qinglong/internal/ids"
	"github.com/qinglong/qinglong/internal/trigger"
)

func TestCheckDecisionAcceptsOnlyTheDecidersOwnDecision(t *testing.T) {
	t.Parallel()
	cursor := int64(1_700_000_000_000)
	due := ticket("t1", &cursor, cursor+1_000, trigger.FireOnce)
	fresh := ticket("t2", nil, cursor, trigger.FireOnce)
	admit := func(tk Ticket) CommitParams {
		p := CommitParams{Ticket: tk, GraceMs: 30_000, RunID: ids.New(), AttemptID: ids.New()}
		p.Decision, _ = DecideTicket(tk, p.GraceMs)
		return p
	}
	initialise := CommitParams{Ticket: fresh, GraceMs: 30_000}
	initialise.Decision, _ = DecideTicket(fresh, initialise.GraceMs)
	if admit(due).Decision.Action != Admit || initialise.Decision.Action != Initialize {
		t.Fatalf("fixtures decide %s and %s, want admit and initialize", admit(due).Decision.Action, initialise.Decision.Action)
	}
	cases := map[string]struct {
		p    CommitParams
		want Reason
	}{
		"the decider's admit":      {admit(due), ""},
		"the decider's initialise": {initialise, ""},
		"another next cursor":      {func() CommitParams { p := admit(due); p.Decision.NextFireAtMs += 60_000; return p }(), ReasonDecisionMismatch},
		"another grace": {func() CommitParams {
			late := ticket("t3", &cursor, cursor+10*minute, trigger.Skip)
			p := CommitParams{Ticket: late, GraceMs: 30_000}
			p.Decision, _ = DecideTicket(late, p.GraceMs)
			p.GraceMs = 60 * minute
			return p
		}(), ReasonDecisionMismatch},
		"an admit without ids":       {func() CommitParams { p := admit(due); p.RunID = ""; return p }(), ReasonDecisionMismatch},
		"one id for run and attempt": {func() CommitParams { p := admit(due); p.AttemptID = p.RunID; return p }(), ReasonDecisionMismatch},
		"ids for an initialise":      {func() CommitParams { p := initialise; p.RunID = ids.New(); return p }(), ReasonDecisionMismatch},
		"an unparsable cron":         {func() CommitParams { p := admit(due); p.Ticket.Cron.Timezone = "Nowhere/Else"; return p }(), ReasonCronInvalid},
	}
	for name, c := range cases {
		if got := CheckDecision(c.p); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}
