package cron

import (
	"errors"
	"fmt"
	"maps"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

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
	// Reason names the mistake stably and Params the values a sentence
	// for it names (part, text, …), for a caller that says it in its own
	// language rather than in Problem's and Hint's English.
	Reason qlerror.Reason
	Params map[string]string
}

func (e *ParseError) Error() string {
	subject := "expression"
	if e.Part == "timezone" {
		subject = "timezone"
	}
	return fmt.Sprintf("cron %s %q: %s; %s", subject, e.Input, e.Problem, e.Hint)
}

// The reasons of a ParseError, each with the params its sentence may
// name. part is the field at fault (minute…), text the field as written,
// values what the field takes (0-59).
const (
	// RefusalEmpty is an empty expression.
	RefusalEmpty qlerror.Reason = "cron_empty"
	// RefusalMacro is a macro with a plain equivalent: macro, instead.
	RefusalMacro qlerror.Reason = "cron_macro"
	// RefusalUnknownMacro is a macro of no grammar: macro.
	RefusalUnknownMacro qlerror.Reason = "cron_unknown_macro"
	// RefusalEvery is an interval (@every) an expression matches: every
	// (the interval as written), instead.
	RefusalEvery qlerror.Reason = "cron_every"
	// RefusalEveryNone is an interval (@every) no expression matches:
	// every.
	RefusalEveryNone qlerror.Reason = "cron_every_none"
	// RefusalReboot is a startup trigger (@reboot).
	RefusalReboot qlerror.Reason = "cron_reboot"
	// RefusalTimezonePrefix is a TZ= prefix: prefix, zone, rest (the
	// expression without it).
	RefusalTimezonePrefix qlerror.Reason = "cron_timezone_prefix"
	// RefusalFieldCount is an expression of other than 5 or 6 fields:
	// count.
	RefusalFieldCount qlerror.Reason = "cron_field_count"
	// RefusalUnsupported is Quartz's L, W or #: part, text.
	RefusalUnsupported qlerror.Reason = "cron_unsupported"
	// RefusalCharacter is a character of no grammar: part, text, char,
	// values.
	RefusalCharacter qlerror.Reason = "cron_character"
	// RefusalValue is a word the field does not take ("L" as a minute,
	// "FOO" as a month): part, text, item, values.
	RefusalValue qlerror.Reason = "cron_value"
	// RefusalEmptyItem is an empty list item ("1,,2"): part, text, values.
	RefusalEmptyItem qlerror.Reason = "cron_empty_item"
	// RefusalIncomplete is a range or step with a number missing ("5-",
	// "-5", "5/"): part, text, item.
	RefusalIncomplete qlerror.Reason = "cron_incomplete"
	// RefusalStarInRange is "*" inside a range ("*-5"): part, text, item.
	RefusalStarInRange qlerror.Reason = "cron_star_in_range"
	// RefusalField is a field the grammar refuses (a value out of range,
	// a name it does not know): part, text, values, detail (the parser's
	// own words).
	RefusalField qlerror.Reason = "cron_field"
	// RefusalExpression is an expression refused as a whole: detail.
	RefusalExpression qlerror.Reason = "cron_expression"
	// RefusalStep is a step as large as its field: part, text, step,
	// size (the field's values), period (the next field: hour…).
	RefusalStep qlerror.Reason = "cron_step"
	// RefusalTimezoneMissing is a trigger without a zone.
	RefusalTimezoneMissing qlerror.Reason = "cron_timezone_missing"
	// RefusalTimezoneLocal is the zone "Local".
	RefusalTimezoneLocal qlerror.Reason = "cron_timezone_local"
	// RefusalTimezoneUnknown is a zone name the zone database does not
	// have: value.
	RefusalTimezoneUnknown qlerror.Reason = "cron_timezone_unknown"
	// RefusalTimezoneCase is a zone name the zone database has only in
	// other letter case (utc, asia/shanghai): value, suggest (the name
	// as the database spells it).
	RefusalTimezoneCase qlerror.Reason = "cron_timezone_case"
)

// because gives e its reason and, as key, value pairs, its params.
func (e *ParseError) because(r qlerror.Reason, params ...string) *ParseError {
	e.Reason = r
	e.Params = make(map[string]string, len(params)/2)
	for i := 0; i+1 < len(params); i += 2 {
		e.Params[params[i]] = params[i+1]
	}
	return e
}

// Refusal is err as the Invalid error of field ("trigger.cron: cron
// expression …"), with the reason and params of its ParseError and the
// field among them, as every field's error names its field.
func Refusal(field string, err error) *qlerror.Error {
	e := qlerror.Wrap(qlerror.Invalid, err, "%s", field)
	if pe := (*ParseError)(nil); errors.As(err, &pe) {
		e.Reason, e.Params = pe.Reason, maps.Clone(pe.Params)
		if e.Params == nil {
			e.Params = map[string]string{}
		}
		e.Params["field"] = field
	}
	return e
}

// ZoneRefusal is Refusal for a zone that is a field of its own rather
// than a trigger's cron timezone (a notification channel's timeZone): the
// message names the field where a ParseError says "cron timezone", so it
// points at the line to fix.
func ZoneRefusal(field string, err error) *qlerror.Error {
	e := Refusal(field, err)
	if pe := (*ParseError)(nil); errors.As(err, &pe) {
		e.Msg, e.Err = fmt.Sprintf("%s %q: %s; %s", field, pe.Input, pe.Problem, pe.Hint), nil
	}
	return e
}
