package cli

import (
	"cmp"
	"context"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// ServeFunc runs a server profile until ctx ends.
type ServeFunc func(ctx context.Context, cmd *cobra.Command, flags *ServeFlags) error

// Profile is one server profile of a build: how `serve` runs it, and the
// defaults its help states.
type Profile struct {
	Serve ServeFunc
	// Defaults are what the profile applies to the settings left unset.
	// The profile's own package builds them from the values it applies,
	// so the help cannot drift from what the server does.
	Defaults ServeDefaults
}

// ServeDefaults are a profile's defaults of the settings whose defaults
// differ by profile.
type ServeDefaults struct {
	PageSize    int
	Cadence     time.Duration
	Grace       time.Duration
	StopTimeout time.Duration
	// Concurrency is how many commands the profile runs at once: 0 is the
	// CPU count, -1 a profile that runs none itself (the cluster's
	// workers do).
	Concurrency int
	// MaxConcurrency is the largest --concurrency the profile accepts (0
	// where it runs no command itself).
	MaxConcurrency int
	// LogMaxBytes caps one attempt's captured output, LogMaxBytesMin and
	// LogMaxBytesMax are the bounds the profile accepts for it.
	LogMaxBytes                    int64
	LogMaxBytesMin, LogMaxBytesMax int64
	Retention                      retention.Policy
	// HTTPAddr is the API's listen address; "" is off.
	HTTPAddr string
	// ClockWait is --clock-wait's default; 0 for a profile that takes its
	// time from its database (the cluster).
	ClockWait time.Duration
	// LogFormat is --log-format's default ("" is text): each profile
	// keeps the format it logged in before the flag existed.
	LogFormat string
	// The cluster's own: the claim lease, the commit groups of a page,
	// the worker ingress's address and the workers' run lease.
	Lease          time.Duration
	CommitParallel int
	WorkerAddr     string
	RunLease       time.Duration
	// Bounds are the ranges the profile holds the settings to whose range
	// leaves 0 out (page-size, cadence, stop-timeout, the cluster's lease,
	// commit-parallel and run-lease), by flag name, in the words its
	// refusal of a value outside one states it: serve refuses a 0 given to
	// one (which the profile would read as left out) in the same words,
	// and its help states them. concurrency and log-max-bytes come from
	// the fields above when a profile does not give them here.
	Bounds map[string]string
}

// bound is the range the profile holds the setting of flag name to, as
// its refusals state it; "" when the profile states none.
func (d ServeDefaults) bound(name string) string {
	if b := d.Bounds[name]; b != "" {
		return b
	}
	switch name {
	case "concurrency":
		return d.concurrencyRange()
	case "log-max-bytes":
		return d.logMaxBytesRange()
	case "notify-backoff":
		return validate.Duration(notify.MinBaseBackoff) + "–" + validate.Duration(notify.MaxBaseBackoff)
	case "notify-max-attempts":
		return "1–" + strconv.Itoa(notify.MaxAttemptsLimit)
	}
	return ""
}

// NoConcurrency marks a profile whose server runs no command itself.
const NoConcurrency = -1

// summary is the profile's line in `serve --help`.
func (d ServeDefaults) summary() string {
	s := "page " + strconv.Itoa(d.PageSize) + ", cadence " + validate.Duration(d.Cadence) + ", misfire grace " + validate.Duration(d.Grace)
	if d.Concurrency > 0 {
		s += ", concurrency " + strconv.Itoa(d.Concurrency)
	}
	return s
}

// clockWait says the default of --clock-wait; "" for a profile without
// one.
func (d ServeDefaults) clockWait() string {
	if d.ClockWait == 0 {
		return ""
	}
	return validate.Duration(d.ClockWait)
}

// logFormat is the profile's --log-format when none is given.
func (d ServeDefaults) logFormat() string { return cmp.Or(d.LogFormat, LogText) }

// concurrency says the default of --concurrency; "" for a profile that
// runs no command itself.
func (d ServeDefaults) concurrency() string {
	switch {
	case d.Concurrency == 0:
		return "CPU count"
	case d.Concurrency > 0:
		return strconv.Itoa(d.Concurrency)
	}
	return ""
}

// concurrencyRange says the range of --concurrency; "" for a profile
// that runs no command itself.
func (d ServeDefaults) concurrencyRange() string {
	if d.MaxConcurrency < 1 {
		return ""
	}
	return "1–" + strconv.Itoa(d.MaxConcurrency)
}

// logMaxBytesRange says the range of --log-max-bytes; "" for a profile
// that does not give it.
func (d ServeDefaults) logMaxBytesRange() string {
	if d.LogMaxBytesMax == 0 {
		return ""
	}
	return retention.FormatBytes(d.LogMaxBytesMin) + "–" + retention.FormatBytes(d.LogMaxBytesMax)
}
