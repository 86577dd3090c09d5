// Package validate holds the field checks shared by every domain package, so
// one limit has one spelling in every error message.
package validate

import (
	"regexp"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// MaxNameLen bounds object names (project, task, trigger).
const MaxNameLen = 128

var namePattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9_.-]*[a-z0-9])?$`)

// The reasons of a name's refusals: missing, too long, or not of the
// allowed characters.
const (
	RefusalNameMissing qlerror.Reason = "name_missing"
	RefusalNameTooLong qlerror.Reason = "name_too_long"
	RefusalNameShape   qlerror.Reason = "name_shape"
)

// The reasons of the field checks the domain packages and the definitions
// file share, each with the params its sentence names. field is the
// field's path as the file or spec spells it (task.timeout); value is the
// value given as written.
const (
	// RefusalRequired is a field missing or empty: field.
	RefusalRequired qlerror.Reason = "field_required"
	// RefusalNotOneOf is a value outside its set: field, value, allowed
	// (the set, comma-separated).
	RefusalNotOneOf qlerror.Reason = "field_not_one_of"
	// RefusalOutOfRange is a value that is no whole number from min to
	// max: field, value, min, max.
	RefusalOutOfRange qlerror.Reason = "field_out_of_range"
	// RefusalNotDuration is a value that is no duration in whole
	// milliseconds from min to max: field, value, min, max.
	RefusalNotDuration qlerror.Reason = "field_not_a_duration"
	// RefusalTooMany is a list or mapping over its limit: field, count,
	// limit.
	RefusalTooMany qlerror.Reason = "field_too_many"
	// RefusalTooLong is a value over its limit in bytes: field, size,
	// limit.
	RefusalTooLong qlerror.Reason = "field_too_long"
	// RefusalGivenTwice is an entry given twice where each is once:
	// field, value.
	RefusalGivenTwice qlerror.Reason = "field_given_twice"
	// RefusalNULByte is a text holding a NUL byte: field.
	RefusalNULByte qlerror.Reason = "field_nul_byte"
	// RefusalNotUTF8 is a text that is not valid UTF-8: field.
	RefusalNotUTF8 qlerror.Reason = "field_not_utf8"
)

// Name checks an object name: 1–128 characters of lower-case letters,
// digits, '-', '_' and '.', starting and ending with a letter or digit.
func Name(field, s string) error {
	if s == "" {
		return qlerror.New(qlerror.Invalid, "%s: is required", field).Because(RefusalNameMissing, "field", field)
	}
	if len(s) > MaxNameLen {
		return qlerror.New(qlerror.Invalid, "%s: %d characters, the limit is %d", field, len(s), MaxNameLen).Because(RefusalNameTooLong, "field", field, "count", len(s))
	}
	if !namePattern.MatchString(s) {
		return qlerror.New(qlerror.Invalid, "%s: %q must use lower-case letters, digits, '-', '_' or '.', and start and end with a letter or digit", field, s).Because(RefusalNameShape, "field", field, "value", s)
	}
	return nil
}

// MutationID checks a client-chosen idempotency token for a write.
func MutationID(field, s string) error {
	if s == "" {
		return qlerror.New(qlerror.Invalid, "%s: is required (any unique string up to 128 characters)", field)
	}
	if len(s) > 128 {
		return qlerror.New(qlerror.Invalid, "%s: %d characters, the limit is 128", field, len(s))
	}
	return nil
}

// Duration spells d as a flag takes it: 5m rather than Go's 5m0s, 1h
// rather than 1h0m0s.
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
