package cron

import "fmt"

// ParseError is the only error type Parse returns. It is meant to be shown to
// the person who wrote the trigger, so it always carries a hint.
type ParseError struct {
	// Input is the rejected text exactly as given: the expression, or the
	// timezone when Part is "timezone".
	Input string
	// Part is what was wrong: "expression", "timezone", or a field name
	// ("second", "minute", "hour", "day-of-month", "month", "day-of-week").
	Part string
	// Problem says what was wrong.
	Problem string
	// Hint says what to write instead.
	Hint string
}

func (e *ParseError) Error() string {
	subject := "expression"
	if e.Part == "timezone" {
		subject = "timezone"
	}
	return fmt.Sprintf("cron %s %q: %s; %s", subject, e.Input, e.Problem, e.Hint)
}
