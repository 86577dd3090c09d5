package task

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/qinglong/qinglong/internal/core/validate"
)

// Retry outcomes: the ends of an attempt a retry policy may name.
const (
	RetryOnLost     = "lost"
	RetryOnFailed   = "failed"
	RetryOnTimedOut = "timed_out"
)

// RetryOutcomes lists every outcome a retry policy may name, in the order
// a policy stores them.
var RetryOutcomes = []string{RetryOnFailed, RetryOnLost, RetryOnTimedOut}

// Retry policy limits.
const (
	MaxRetryAttempts  = 100
	MaxRetryBackoffMs = int64(24 * 3600 * 1000)
)

// RetryPolicy says whether a Run gets another Attempt after one ended, on
// every profile: at most MaxAttempts attempts in all, each next one BackoffMs after
// the previous ended, and only after the outcomes in On. The zero value
// means no retry. It is part of the command, so of the execution revision
// and its digest: a Run keeps the policy it was admitted with.
type RetryPolicy struct {
	MaxAttempts int
	BackoffMs   int64
	On          []string
}

// Allows reports whether an attempt numbered number (1-based) that ended
// with outcome may be followed by another.
func (p RetryPolicy) Allows(outcome string, number int) bool {
	return number < p.MaxAttempts && slices.Contains(p.On, outcome)
}

// IsZero reports whether the policy is the default: no retry.
func (p RetryPolicy) IsZero() bool {
	return p.MaxAttempts == 0 && p.BackoffMs == 0 && len(p.On) == 0
}

// normalize sorts the outcomes, so a policy naming the same outcomes in
// another order stores and digests alike.
func (p RetryPolicy) normalize() RetryPolicy {
	if len(p.On) == 0 {
		p.On = nil
		return p
	}
	p.On = slices.Clone(p.On)
	sort.Strings(p.On)
	return p
}

// validate checks a policy that is not the zero one.
func (p RetryPolicy) validate(field string) error {
	if p.MaxAttempts < 1 || p.MaxAttempts > MaxRetryAttempts {
		return invalid("%s.maxAttempts: %d is outside 1 … %d (1 means no retry)", field, p.MaxAttempts, MaxRetryAttempts).
			Because(validate.RefusalOutOfRange, "field", field+".maxAttempts", "value", p.MaxAttempts, "min", 1, "max", MaxRetryAttempts)
	}
	if p.BackoffMs < 0 || p.BackoffMs > MaxRetryBackoffMs {
		return validate.DurationOutOfRangeError(field+".backoff", time.Duration(p.BackoffMs)*time.Millisecond, 0, time.Duration(MaxRetryBackoffMs)*time.Millisecond)
	}
	if len(p.On) == 0 {
		return invalid("%s.on: names no outcome; give some of %s", field, strings.Join(RetryOutcomes, ", "))
	}
	seen := make(map[string]bool, len(p.On))
	for _, o := range p.On {
		if !slices.Contains(RetryOutcomes, o) {
			return invalid("%s.on: %q is not one of %s", field, o, strings.Join(RetryOutcomes, ", ")).
				Because(validate.RefusalNotOneOf, "field", field+".on", "value", o, "allowed", strings.Join(RetryOutcomes, ", "))
		}
		if seen[o] {
			return invalid("%s.on: %q is named twice", field, o).Because(validate.RefusalGivenTwice, "field", field+".on", "value", o)
		}
		seen[o] = true
	}
	return nil
}

// Placement restricts which workers may run a command: a worker qualifies
// when its labels contain every label here. Empty means any worker.
type Placement struct {
	Labels map[string]string
}

// IsZero reports whether the placement is the default: any worker.
func (p Placement) IsZero() bool { return len(p.Labels) == 0 }

// MaxWorkerLabels bounds the labels of a worker or a placement.
const MaxWorkerLabels = 64

// labelValuePattern restricts worker label values to characters that need
// no quoting in `k=v,k=v` lists, so every placement can be matched by a
// worker started with such a list.
var labelValuePattern = regexp.MustCompile(`^[A-Za-z0-9_.:/+-]*$`)

// CheckWorkerLabels validates labels that place commands on workers: at
// most MaxWorkerLabels, keys like task labels, values of at most
// MaxLabelLen letters, digits and '_', '.', ':', '/', '+', '-'.
func CheckWorkerLabels(field string, labels map[string]string) error {
	if len(labels) > MaxWorkerLabels {
		return invalid("%s: %d labels, the limit is %d", field, len(labels), MaxWorkerLabels).
			Because(validate.RefusalTooMany, "field", field, "count", len(labels), "limit", MaxWorkerLabels)
	}
	for k, v := range labels {
		if len(k) > MaxLabelLen || !labelKeyPattern.MatchString(k) {
			return invalid("%s: key %q must be 1–%d lower-case letters, digits, '-', '_', '.', '/', starting and ending with a letter or digit", field, k, MaxLabelLen).
				Because(RefusalLabelKey, "field", field, "value", k)
		}
		if len(v) > MaxLabelLen || !utf8.ValidString(v) || !labelValuePattern.MatchString(v) {
			return invalid("%s.%s: value %q must be at most %d letters, digits, '_', '.', ':', '/', '+', '-'", field, k, v, MaxLabelLen).
				Because(RefusalWorkerLabelValue, "field", field+"."+k, "value", v)
		}
	}
	return nil
}

// ParseWorkerLabels reads the command-line form k=v,k=v ("" is no labels)
// and validates it with CheckWorkerLabels.
func ParseWorkerLabels(field, s string) (map[string]string, error) {
	out := map[string]string{}
	if s == "" {
		return out, nil
	}
	for _, item := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(item, "=")
		if !ok || k == "" {
			return nil, invalid("%s: %q is not key=value; write labels as k=v,k=v (e.g. region=eu,gpu=true)", field, item)
		}
		if _, dup := out[k]; dup {
			return nil, invalid("%s: key %q is given twice", field, k)
		}
		out[k] = v
	}
	if err := CheckWorkerLabels(field, out); err != nil {
		return nil, err
	}
	return out, nil
}

// FormatWorkerLabels is the k=v,k=v form of labels, keys sorted.
func FormatWorkerLabels(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%s", k, labels[k]))
	}
	return strings.Join(parts, ",")
}
