package scheduler

import (
	"fmt"
	"regexp"
	"time"

	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// Defaults and limits of the cluster scheduler (docs/architecture.md, "Profiles").
const (
	DefaultPageSize    = schedule.MaxPageSize
	MaxPageSize        = schedule.MaxPageSize
	DefaultLease       = 30 * time.Second
	MinLease           = time.Second
	MaxLease           = 60 * time.Second
	DefaultCadence     = time.Second
	DefaultStopTimeout = 10 * time.Second
	DefaultParallel    = 4
	MaxParallel        = schedule.MaxParallel
	DefaultGrace       = 30 * time.Second
	MaxGrace           = 24 * time.Hour
	// MaxClaimAhead bounds how long a row claimed ahead waits for its due
	// time, during which only this replica can admit it (ahead.go; off by
	// default).
	MaxClaimAhead = 2 * time.Second
)

// OwnerPattern is the shape of a claim owner; the schema's check constraint
// on trigger_schedules.claim_owner enforces the same pattern.
var OwnerPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`)

// Config of one replica's scheduler. There is deliberately no clock or
// time-source field: every decision uses the database time its claim was
// acquired at, or for a row claimed ahead (ClaimAhead) its own due time.
type Config struct {
	// Owner is the replica id written into every claim it takes.
	Owner string
	// PageSize is how many schedule rows one round claims (1–256).
	PageSize int
	// Lease is how long a claim stays valid in database time (1 s–60 s).
	Lease time.Duration
	// Cadence is the wait after a round that claimed less than a page
	// (250 ms–1 h).
	Cadence time.Duration
	// StopTimeout bounds the drain on Stop (100 ms–30 s).
	StopTimeout time.Duration
	// Parallel is how many commit groups of one page commit side by side,
	// one transaction each (1–16).
	Parallel int
	// Grace is how late an occurrence may be before a skip policy drops it
	// (0–24 h). GraceSet says it was given: 0 then means no grace at all,
	// not the default.
	Grace    time.Duration
	GraceSet bool
	// ClaimAhead is how long before the next due instant the replica
	// claims the rows due at it (ahead.go): 0–2 s and at most a quarter of
	// Lease; 0, the default, is off.
	ClaimAhead time.Duration
}

// WithDefaults fills every zero field with its default.
func (c Config) WithDefaults() Config {
	if c.PageSize == 0 {
		c.PageSize = DefaultPageSize
	}
	if c.Lease == 0 {
		c.Lease = DefaultLease
	}
	if c.Cadence == 0 {
		c.Cadence = DefaultCadence
	}
	if c.StopTimeout == 0 {
		c.StopTimeout = DefaultStopTimeout
	}
	if c.Parallel == 0 {
		c.Parallel = DefaultParallel
	}
	if c.Grace == 0 && !c.GraceSet {
		c.Grace = DefaultGrace
	}
	return c
}

// FieldError names a setting that is out of its allowed range.
type FieldError struct {
	Field   string // the Config field, e.g. "PageSize"
	Value   string
	Allowed string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %s is not allowed (allowed: %s)", e.Field, e.Value, e.Allowed)
}

// Bounds are the fixed ranges Validate holds fields to, by field, as its
// FieldError states them: a caller that reads a 0 as a field left out
// states the range in the same words when it refuses a 0 given.
var Bounds = map[string]string{
	"PageSize":    fmt.Sprintf("1–%d", MaxPageSize),
	"Lease":       span(MinLease, MaxLease),
	"Cadence":     span(loop.MinCadence, loop.MaxCadence),
	"StopTimeout": span(loop.MinStopTimeout, loop.MaxStopTimeout),
	"Parallel":    fmt.Sprintf("1–%d", MaxParallel),
	"Grace":       span(0, MaxGrace),
}

// Validate checks every field and returns a *FieldError for the first one
// out of range.
func (c Config) Validate() error {
	switch {
	case !OwnerPattern.MatchString(c.Owner):
		return &FieldError{Field: "Owner", Value: fmt.Sprintf("%q", c.Owner), Allowed: "1–128 characters of A-Z a-z 0-9 _ . : -, starting with a letter or digit"}
	case c.PageSize < 1 || c.PageSize > MaxPageSize:
		return &FieldError{Field: "PageSize", Value: fmt.Sprint(c.PageSize), Allowed: Bounds["PageSize"]}
	case c.Lease < MinLease || c.Lease > MaxLease:
		return &FieldError{Field: "Lease", Value: validate.Duration(c.Lease), Allowed: Bounds["Lease"]}
	case c.Cadence < loop.MinCadence || c.Cadence > loop.MaxCadence:
		return &FieldError{Field: "Cadence", Value: validate.Duration(c.Cadence), Allowed: Bounds["Cadence"]}
	case c.StopTimeout < loop.MinStopTimeout || c.StopTimeout > loop.MaxStopTimeout:
		return &FieldError{Field: "StopTimeout", Value: validate.Duration(c.StopTimeout), Allowed: Bounds["StopTimeout"]}
	case c.Parallel < 1 || c.Parallel > MaxParallel:
		return &FieldError{Field: "Parallel", Value: fmt.Sprint(c.Parallel), Allowed: Bounds["Parallel"]}
	case c.Grace < 0 || c.Grace > MaxGrace:
		return &FieldError{Field: "Grace", Value: validate.Duration(c.Grace), Allowed: Bounds["Grace"]}
	case c.ClaimAhead < 0 || c.ClaimAhead > min(MaxClaimAhead, c.Lease/4):
		return &FieldError{Field: "ClaimAhead", Value: validate.Duration(c.ClaimAhead),
			Allowed: span(0, min(MaxClaimAhead, c.Lease/4)) + " (at most " + validate.Duration(MaxClaimAhead) + " and a quarter of the lease; 0 is off)"}
	}
	return nil
}

func span(lo, hi time.Duration) string { return validate.Duration(lo) + "–" + validate.Duration(hi) }
