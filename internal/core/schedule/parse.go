package schedule

import "github.com/qinglong/qinglong/internal/core/cron"

func parseTicket(tk Ticket) (*cron.Schedule, error) {
	return cron.Parse(tk.Cron.Expression, tk.Cron.Timezone)
}

// ticketInput is the decider's input for a claimed ticket: its own cron,
// cursor and revision time, decided at its observation (claim) time.
func ticketInput(s *cron.Schedule, tk Ticket, graceMs int64) Input {
	return Input{
		Schedule:            s,
		CursorMs:            tk.NextFireAtMs,
		RevisionCreatedAtMs: tk.TriggerCreatedAtMs,
		NowMs:               tk.ObservedAtMs,
		Policy:              tk.Cron.MisfirePolicy,
		GraceMs:             graceMs,
		Pause:               tk.Pause,
		TriggerID:           tk.TriggerID,
		JitterMs:            tk.Cron.JitterMs,
		StartAtMs:           tk.Cron.StartAtMs,
		EndAtMs:             tk.Cron.EndAtMs,
		CatchUpWindowMs:     tk.Cron.CatchUpWindowMs,
		HasCatchUpWindow:    tk.Cron.HasCatchUpWindow,
	}
}

// DecideTicket is the decision a round makes for a ticket.
func DecideTicket(tk Ticket, graceMs int64) (Decision, error) {
	s, err := parseTicket(tk)
	if err != nil {
		return Decision{}, err
	}
	return Decide(ticketInput(s, tk, graceMs))
}
