package cron

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	robfig "github.com/robfig/cron/v3"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// field describes one position of the expression for error messages.
type field struct {
	name string
	// hint lists what the field accepts.
	hint string
	// values are the values it takes, in no language's words.
	values string
	// parser parses this field alone, so a robfig error can be pinned to the
	// field that caused it; robfig's own message does not say which one.
	parser robfig.Parser
	// names are the words the field takes besides numbers (lower case).
	names []string
	// day marks the two day fields, where Quartz's L and W mean something
	// a user may have meant; elsewhere they are merely not values.
	day bool
}

const anyStepList = "* ? , - /"

var (
	secondField = field{name: "second", hint: "second takes 0-59 and " + anyStepList, values: "0-59", parser: robfig.NewParser(robfig.Second)}
	minuteField = field{name: "minute", hint: "minute takes 0-59 and " + anyStepList, values: "0-59", parser: robfig.NewParser(robfig.Minute)}
	hourField   = field{name: "hour", hint: "hour takes 0-23 and " + anyStepList, values: "0-23", parser: robfig.NewParser(robfig.Hour)}
	domField    = field{name: "day-of-month", hint: "day-of-month takes 1-31 and " + anyStepList, values: "1-31",
		parser: robfig.NewParser(robfig.Dom), day: true}
	monthField = field{name: "month", hint: "month takes 1-12 or JAN-DEC and " + anyStepList, values: "1-12, JAN-DEC",
		parser: robfig.NewParser(robfig.Month),
		names:  []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}}
	dowField = field{name: "day-of-week", hint: "day-of-week takes 0-6 or SUN-SAT (0 = Sunday; write 0 or SUN, not 7) and " + anyStepList,
		values: "0-6, SUN-SAT (0 = SUN)", parser: robfig.NewParser(robfig.Dow),
		names: []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}, day: true}

	fiveFields = []field{minuteField, hourField, domField, monthField, dowField}
	sixFields  = []field{secondField, minuteField, hourField, domField, monthField, dowField}
)

// splitFields rejects what robfig would misread or explain badly (empty
// input, macros, timezone prefixes, wrong field counts, L/W/#, stray
// characters) and returns the fields with their layout.
func splitFields(expr string) ([]string, []field, error) {
	trimmed := strings.TrimSpace(expr)
	if trimmed == "" {
		return nil, nil, (&ParseError{Input: expr, Part: "expression", Problem: "the expression is empty",
			Hint: `write 5 fields such as "*/5 * * * *"`}).because(RefusalEmpty)
	}
	if err := rejectMacro(expr, trimmed); err != nil {
		return nil, nil, err
	}
	if err := rejectTimezonePrefix(expr, trimmed); err != nil {
		return nil, nil, err
	}
	fields := strings.Fields(trimmed)
	layout, err := fieldLayout(expr, len(fields))
	if err != nil {
		return nil, nil, err
	}
	for i, text := range fields {
		if err := checkField(expr, layout[i], text); err != nil {
			return nil, nil, err
		}
	}
	return fields, layout, nil
}

func fieldLayout(expr string, count int) ([]field, error) {
	switch count {
	case 5:
		return fiveFields, nil
	case 6:
		return sixFields, nil
	}
	hint := `e.g. "30 2 * * *" runs daily at 02:30, "15 30 2 * * *" at 02:30:15`
	if count == 7 {
		hint = "a trailing year field is not supported; " + hint
	}
	return nil, (&ParseError{Input: expr, Part: "expression",
		Problem: fmt.Sprintf("expected 5 fields (minute hour day-of-month month day-of-week) "+
			"or 6 with leading seconds, got %d", count),
		Hint: hint}).because(RefusalFieldCount, "count", strconv.Itoa(count))
}

// checkField catches the mistakes robfig accepts silently ("1,,2", "," which
// selects nothing, "*-5" read as "*") or reports poorly (L, W, #).
func checkField(expr string, f field, text string) error {
	fail := func(problem, hint string, r qlerror.Reason, params ...string) error {
		return (&ParseError{Input: expr, Part: f.name, Problem: fmt.Sprintf("%s field %q: %s", f.name, text, problem),
			Hint: hint}).because(r, append([]string{"part", f.name, "text", text, "values", f.values}, params...)...)
	}
	for _, r := range text {
		switch {
		case r == '#':
			return fail(`"#" (nth weekday of the month) is not supported`, unsupportedHint, RefusalUnsupported)
		case r >= '0' && r <= '9', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', strings.ContainsRune("*?,-/", r):
		default:
			return fail(fmt.Sprintf("unexpected character %q", r), f.hint, RefusalCharacter, "char", string(r))
		}
	}
	for item := range strings.SplitSeq(text, ",") {
		if item == "" {
			return fail("empty list item", f.hint, RefusalEmptyItem)
		}
		if problem := incomplete(item); problem != "" {
			return fail(problem, `write a range with both ends ("5-10") and a step after "/" ("5/15", "*/15")`, RefusalIncomplete, "item", item)
		}
		base, _, _ := strings.Cut(item, "/")
		if strings.ContainsAny(base, "*?") && base != "*" && base != "?" {
			return fail(fmt.Sprintf("%q cannot be part of a range", base), `write "*", "*/step" or "a-b/step"`, RefusalStarInRange, "item", base)
		}
		if f.day {
			if problem := quartzToken(f, item); problem != "" {
				return fail(problem, unsupportedHint, RefusalUnsupported)
			}
		}
		if tok := notAValue(f, item); tok != "" {
			return fail(fmt.Sprintf("%q is not a value of this field", tok), f.hint, RefusalValue, "item", tok, "values", f.values)
		}
	}
	return nil
}

// incomplete says what is missing from a list item whose range or step
// lacks a number ("5-", "-5", "5/"), "" when none is: robfig refuses them
// as "failed to parse int from : strconv.Atoi", which names nothing.
func incomplete(item string) string {
	base, step, stepped := strings.Cut(item, "/")
	switch lo, hi, ranged := strings.Cut(base, "-"); {
	case stepped && step == "":
		return fmt.Sprintf("%q has no step after \"/\"", item)
	case ranged && lo == "":
		return fmt.Sprintf("range %q has no start before \"-\"", base)
	case ranged && hi == "":
		return fmt.Sprintf("range %q has no end after \"-\"", base)
	case stepped && base == "":
		return fmt.Sprintf("%q has nothing before \"/\" to step through", item)
	}
	return ""
}

// notAValue returns the first part of a list item that is neither a number,
// "*", "?" nor one of the field's names. robfig would refuse it as "failed
// to parse int … strconv.Atoi", which says nothing a user can act on.
func notAValue(f field, item string) string {
	for _, tok := range strings.FieldsFunc(item, func(r rune) bool { return r == '-' || r == '/' }) {
		if tok == "*" || tok == "?" || strings.Trim(tok, "0123456789") == "" || slices.Contains(f.names, strings.ToLower(tok)) {
			continue
		}
		return tok
	}
	return ""
}

const unsupportedHint = `L, W and # are not in this grammar; write explicit values instead, ` +
	`e.g. day-of-month "1,15" or day-of-week "MON-FRI"`

// quartzToken recognises Quartz's L and W day modifiers ("L", "LW", "5L",
// "15W", "L-3"), which would otherwise fail as "failed to parse int". Names
// such as JUL or WED are not tokens of this form, so they pass.
func quartzToken(f field, item string) string {
	for _, tok := range strings.FieldsFunc(strings.ToUpper(item), func(r rune) bool { return r == '-' || r == '/' }) {
		digits := strings.TrimLeft(tok, "0123456789")
		switch {
		case tok == "L" && f.name == dowField.name:
			return `"L" (last day of the week) is not supported`
		case tok == "L":
			return `"L" (last day of the month) is not supported`
		case tok == "LW":
			return `"LW" (last weekday of the month) is not supported`
		case digits == "L" && len(tok) > 1:
			return fmt.Sprintf("%q (last given weekday) is not supported", tok)
		case digits == "W" && len(tok) > 1:
			return fmt.Sprintf("%q (nearest weekday) is not supported", tok)
		}
	}
	return ""
}

// locateFieldError turns robfig's message for the whole expression into one
// that names the field at fault and says what the field accepts. The
// whole-expression and single-field parsers share robfig's field grammar, so
// a field fails here; robfig's own message remains the answer should a
// future version of it disagree.
func locateFieldError(expr string, fields []string, layout []field, cause error) error {
	for i, text := range fields {
		if _, err := layout[i].parser.Parse(text); err != nil {
			return (&ParseError{Input: expr, Part: layout[i].name,
				Problem: fmt.Sprintf("%s field %q: %v", layout[i].name, text, err), Hint: layout[i].hint}).
				because(RefusalField, "part", layout[i].name, "text", text, "values", layout[i].values, "detail", err.Error())
		}
	}
	return (&ParseError{Input: expr, Part: "expression", Problem: cause.Error(), Hint: Features}).because(RefusalExpression, "detail", cause.Error())
}
