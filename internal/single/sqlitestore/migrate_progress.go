package sqlitestore

import "regexp"

// LongStep is a pending migration step that reads every Run or every
// attempt, said before it starts: it runs inside the migration's one
// transaction, and nothing else shows that the start is busy rather than
// hung. It builds an index over runs or attempts (two indexes over
// 890,000 Runs took 11 s on a fast disk), or adds a column to one of
// them: both tables are STRICT, and SQLite checks every row of a STRICT
// table a column is added to (a column over 1,000,000 attempts took
// minutes on a loaded machine).
type LongStep struct {
	Migration string
	// Index is the index the step builds; Column, "table.column", the
	// column it adds. One of the two is set.
	Index, Column string
	Runs          int64
}

// sayLongStepFrom is the number of Runs from which a long step is said:
// below it the step takes under about a second.
const sayLongStepFrom = 100_000

// longStep finds the statements of a migration that read every Run or
// attempt.
var longStep = regexp.MustCompile(`(?m)^(?:CREATE INDEX (\w+) ON (?:runs|attempts) \(|ALTER TABLE (runs|attempts) ADD COLUMN (\w+))`)

// longSteps are the steps of the migration's SQL that read every Run or
// attempt, in order (Migration and Runs left for the caller).
func longSteps(sql string) []LongStep {
	var out []LongStep
	for _, m := range longStep.FindAllStringSubmatch(sql, -1) {
		if m[1] != "" {
			out = append(out, LongStep{Index: m[1]})
			continue
		}
		out = append(out, LongStep{Column: m[2] + "." + m[3]})
	}
	return out
}
