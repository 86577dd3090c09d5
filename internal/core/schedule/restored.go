package schedule

// RestoredTicket passes over, as PassRestored, every occurrence of tk's
// row from its cursor up to untilMs, and moves the cursor to the first
// occurrence after untilMs: what a server started on a backup's copy does
// when told not to catch up what the copy says was missed (the old server
// may have run it after the snapshot). moved is false for a row whose
// cursor is later than untilMs, or that has no occurrence after it within
// its bounds (the round's next decision ends it as it would have).
func RestoredTicket(tk Ticket, untilMs int64) (d Decision, moved bool, err error) {
	if tk.NextFireAtMs == nil || *tk.NextFireAtMs > untilMs {
		return Decision{}, false, nil
	}
	s, err := parseTicket(tk)
	if err != nil {
		return Decision{}, false, err
	}
	in := ticketInput(s, tk, 0)
	next, ok := s.Next(untilMs)
	if !ok || afterEnd(in, next) {
		return Decision{}, false, nil
	}
	passed, ok := PassRange(s, PassRestored, *tk.NextFireAtMs, untilMs)
	if !ok {
		return Decision{}, false, nil
	}
	return Decision{Action: SkipLate, DueMs: *tk.NextFireAtMs, NextFireAtMs: next, NextDueAtMs: fireAt(in, next), Passed: []Passed{passed}}, true, nil
}
