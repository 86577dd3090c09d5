// Package retention bounds what a long-running installation stores:
// finished and lost Runs with their attempts, events and logs after an
// age (a lost Run waits for a decision, but not for ever), logs after a
// (shorter) age, the logs' total size, and delivered and dead
// notifications after an age. The stores delete in small
// batches, each its own short transaction, so admission never waits long
// behind a deletion (docs/architecture.md, "Retention").
package retention

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Policy says what a pass deletes. A zero field is off.
type Policy struct {
	// RunsAge deletes finished Runs (and their attempts, events and logs)
	// that finished longer ago than this, and lost Runs found lost longer
	// ago than this.
	RunsAge time.Duration
	// LogsAge deletes the logs of finished and lost Runs whose attempts
	// ended longer ago than this; the Runs stay.
	LogsAge time.Duration
	// LogBytes caps what the logs take on disk (DiskBytes of each): the
	// logs of the oldest finished and lost Runs go first until the rest
	// fits; a running command's never.
	LogBytes int64
	// NotificationsAge deletes delivered and dead notifications created
	// longer ago than this; a pending one (still to be sent) never.
	NotificationsAge time.Duration
}

// Off reports whether every setting is off. A pass then applies only the
// rule without a setting, expired console sessions: a serving process
// still runs its passes for them, so that they never wait for a sign-in
// or for their cookie to be presented again.
func (p Policy) Off() bool {
	return p.RunsAge == 0 && p.LogsAge == 0 && p.LogBytes == 0 && p.NotificationsAge == 0
}

// LogBlockBytes is the block the log cap counts a log's bytes in: a file
// takes whole blocks of its file system, 4 KiB on the usual ones (ext4,
// XFS, Btrfs, tmpfs's pages, overlayfs over them), and an inode.
const LogBlockBytes = 4096

// DiskBytes is what the cap counts of a log of size bytes: its bytes in
// whole blocks, and at least one block, so that a log of one line counts
// the block it takes, and the cap also bounds the number of log files (and
// so of inodes) to LogBytes / LogBlockBytes. The stores' statements count
// the same in SQL.
func DiskBytes(size int64) int64 {
	return max((size+LogBlockBytes-1)/LogBlockBytes, 1) * LogBlockBytes
}

// Day is the unit of the age settings; they also take hours.
const Day = 24 * time.Hour

// Limits of the settings.
const (
	MaxAgeDays  = 36600
	MinLogBytes = 1 << 20
	MaxLogBytes = 1 << 50
)

// Defaults per profile. Notifications are kept as long as the Runs they
// are about: a notification outlives its Run's deletion by one period at
// most, and `ql notifications list` shows what `ql runs` still explains.
var (
	StandaloneDefaults = Policy{RunsAge: 30 * Day, LogsAge: 7 * Day, LogBytes: 1 << 30, NotificationsAge: 30 * Day}
	EdgeDefaults       = Policy{RunsAge: 3 * Day, LogsAge: 3 * Day, LogBytes: 64 << 20, NotificationsAge: 3 * Day}
	ClusterDefaults    = Policy{RunsAge: 30 * Day, LogsAge: 7 * Day, NotificationsAge: 30 * Day}
)

// Settings are the settings as given (flag, variable or config file); ""
// means the profile's default.
type Settings struct {
	Runs, Logs, LogBytes, Notifications string
}

// Resolve parses the settings over the profile's defaults. Errors name
// the flag, what was given and what is allowed.
func (s Settings) Resolve(defaults Policy) (Policy, error) {
	p := defaults
	var err error
	if s.Runs != "" {
		if p.RunsAge, err = ParseAge("--retention-runs", s.Runs); err != nil {
			return Policy{}, err
		}
	}
	if s.Logs != "" {
		if p.LogsAge, err = ParseAge("--retention-logs", s.Logs); err != nil {
			return Policy{}, err
		}
	}
	if s.LogBytes != "" {
		if p.LogBytes, err = ParseBytes("--retention-log-bytes", s.LogBytes); err != nil {
			return Policy{}, err
		}
	}
	if s.Notifications != "" {
		if p.NotificationsAge, err = ParseAge("--retention-notifications", s.Notifications); err != nil {
			return Policy{}, err
		}
	}
	return p, nil
}

// ParseAge reads an age: a number of days ("30", "30d"), a number of hours
// ("12h", for a device that keeps hours rather than days), or "0"/"off"
// for off. A value that is neither is refused as such; a number outside
// the range (0–MaxAgeDays days, as many hours) is refused with the range.
func ParseAge(flag, v string) (time.Duration, error) {
	s := strings.TrimSpace(strings.ToLower(v))
	if s == "off" {
		return 0, nil
	}
	unit, most, word := Day, MaxAgeDays, "days"
	if hours, ok := strings.CutSuffix(s, "h"); ok {
		s, unit, most, word = hours, time.Hour, MaxAgeDays*24, "hours"
	} else {
		s = strings.TrimSuffix(s, "d")
	}
	n, err := strconv.Atoi(s)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, qlerror.New(qlerror.Invalid, "%s %q is not a number of days or hours: write e.g. 30 or 30d (0–%d days), 12h (0–%d hours), or off (0) to keep everything", flag, v, MaxAgeDays, MaxAgeDays*24)
	}
	if err != nil || n < 0 || n > most {
		return 0, qlerror.New(qlerror.Invalid, "%s %q is out of range (0–%d %s): write a number in that range, e.g. 30 days or 12h, or off (0) to keep everything", flag, v, most, word)
	}
	return time.Duration(n) * unit, nil
}

var byteUnits = []struct {
	suffix string
	mult   int64
}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40}, {"b", 1}}

// SizeForms says how a size is written, for a refusal of one that is not.
const SizeForms = "write e.g. 1GiB, 64MiB, 512KiB or a number of bytes"

// ParseSize reads a size as every size setting takes it: a whole number
// of bytes, B, KiB, MiB, GiB or TiB, in any case, a space allowed before
// the unit (1GiB, 64 MiB, 1048576). ok is false for what is not a size. A
// size beyond int64 reads as math.MaxInt64, above every range, so the
// setting's range check refuses it with its range.
func ParseSize(v string) (n int64, ok bool) {
	s := strings.TrimSpace(strings.ToLower(v))
	mult := int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(s, "-"):
		return math.MaxInt64, true
	case err != nil:
		return 0, false
	case n > math.MaxInt64/mult:
		return math.MaxInt64, true
	case n < math.MinInt64/mult:
		return math.MinInt64, true
	}
	return n * mult, true
}

// ParseBytes reads a size (ParseSize), or "0"/"off". A value that is not a
// size is refused as such; a size outside MinLogBytes–MaxLogBytes is
// refused with the range.
func ParseBytes(flag, v string) (int64, error) {
	if strings.TrimSpace(strings.ToLower(v)) == "off" {
		return 0, nil
	}
	n, ok := ParseSize(v)
	if !ok {
		return 0, qlerror.New(qlerror.Invalid, "%s %q is not a size: %s (%s–%s), or off (0) for no cap", flag, v, SizeForms, FormatBytes(MinLogBytes), FormatBytes(MaxLogBytes))
	}
	if n < 0 || n > MaxLogBytes || (n != 0 && n < MinLogBytes) {
		return 0, qlerror.New(qlerror.Invalid, "%s %q is out of range (%s–%s): write a size in that range, e.g. 1GiB, or off (0) for no cap", flag, v,
			FormatBytes(MinLogBytes), FormatBytes(MaxLogBytes))
	}
	return n, nil
}

// FormatBytes prints a size in the largest binary unit that divides it.
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for i < len(units)-1 && n != 0 && n%1024 == 0 {
		n /= 1024
		i++
	}
	return strconv.FormatInt(n, 10) + " " + units[i]
}

// String prints the policy as the settings would be written.
func (p Policy) String() string {
	return "runs " + AgeSetting(p.RunsAge) + ", logs " + AgeSetting(p.LogsAge) + ", log bytes " + SizeSetting(p.LogBytes) +
		", notifications " + AgeSetting(p.NotificationsAge)
}

// AgeSetting writes an age as --retention-runs, --retention-logs and
// --retention-notifications take it: whole days (30d), hours when it is
// not a whole number of days (12h), or off.
func AgeSetting(d time.Duration) string {
	if d == 0 {
		return "off"
	}
	if d%Day != 0 {
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	}
	return strconv.FormatInt(int64(d/Day), 10) + "d"
}

// SizeSetting writes a size as --retention-log-bytes takes it (1GiB), or
// off.
func SizeSetting(n int64) string {
	if n == 0 {
		return "off"
	}
	return strings.ReplaceAll(FormatBytes(n), " ", "")
}
