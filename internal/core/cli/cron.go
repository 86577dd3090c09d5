package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/cron"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

const maxCronNext = 1000

func cronCommand(opts Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "cron",
		Short: "Check cron expressions",
	}
	c.AddCommand(cronNextCommand(opts))
	return c
}

func cronNextCommand(opts Options) *cobra.Command {
	var (
		tz    string
		n     int
		after string
	)
	c := &cobra.Command{
		Use:   "next EXPR --tz ZONE [-n N] [--after TIME]",
		Short: "Print the next occurrences of a cron expression",
		Long: "Print the next N occurrences of EXPR in ZONE, in local time and UTC, exactly as the scheduler\n" +
			"computes them (daylight-saving gaps and repeats included).\n\n" + cron.Features,
		Example: "  " + opts.Binary + " cron next '*/10 * * * * *' --tz UTC -n 3\n" +
			"  " + opts.Binary + " cron next '30 2 * * *' --tz America/New_York --after 2026-03-07T12:00:00Z",
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return Usagef("cron next takes one expression, quoted as one argument: '*/5 * * * *'")
			case len(args) > 1:
				// An unquoted expression is split by the shell (and its
				// stars expanded to file names).
				return Usagef("cron next takes one expression, quoted as one argument: '*/5 * * * *' (%d arguments given)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			from, err := cronNextMistakes(opts.Binary, args[0], tz, n, after)
			if err != nil {
				return err
			}
			s, err := cron.Parse(args[0], tz)
			if err != nil {
				return &UsageError{Err: err}
			}
			if note := s.Days().Note(); note != "" {
				// On standard error, as `apply`'s notes: the times on
				// standard output stay one a line for a script.
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: note: %s\n", opts.Binary, note)
			}
			out := cmd.OutOrStdout()
			at := from.UnixMilli()
			for i := 0; i < n; i++ {
				next, ok := s.Next(at)
				last := time.UnixMilli(cron.LastMs).UTC().Format(time.RFC3339)
				switch {
				case ok:
				case !s.MatchesSomeDate():
					// Invalid, as `ql apply` refuses it: the expression is
					// what is wrong.
					return qlerror.New(qlerror.Invalid, "%q never fires in %s after %s (its days of the month never fall in its months, e.g. day 30 of February or day 31 of April); fix the day or month",
						args[0], tz, from.UTC().Format(time.RFC3339))
				case i == 0:
					// The expression fires, but not before the last
					// instant occurrences are computed to.
					return Usagef("%q has no occurrence in %s between %s and %s, the last instant occurrences are computed to; give an earlier --after",
						args[0], tz, from.UTC().Format(time.RFC3339), last)
				default:
					fmt.Fprintf(out, "(no further occurrence before %s, the last instant occurrences are computed to)\n", last)
					return nil
				}
				t := time.UnixMilli(next)
				fmt.Fprintf(out, "%s  %s\n", t.In(s.Location()).Format("2006-01-02 15:04:05 MST -07:00"), t.UTC().Format(time.RFC3339))
				at = next
			}
			return nil
		},
	}
	c.Flags().StringVar(&tz, "tz", "", "IANA time zone (required), e.g. UTC, Europe/Berlin")
	c.Flags().IntVarP(&n, "count", "n", 5, "how many occurrences to print (1–1000)")
	c.Flags().StringVar(&after, "after", "", "start after this RFC 3339 time instead of now")
	return c
}

// cronNextMistakes checks every input of `cron next` and reports all its
// mistakes at once, the expression's first, one a line, each line led by
// the binary's name as the first is, so that one try shows everything to
// fix (a missing --tz does not hide a bad field); it returns the instant
// to start after.
func cronNextMistakes(binary, expr, tz string, n int, after string) (time.Time, error) {
	var mistakes []string
	// The expression is checked in UTC when the zone is missing or wrong:
	// its fields do not depend on the zone.
	zone := tz
	if tz == "" || cron.CheckTimezone(tz) != nil {
		zone = "UTC"
	}
	_, err := cron.Parse(expr, zone)
	if err == nil {
		// As `ql apply` would refuse it.
		err = cron.CheckSteps(expr)
	}
	if err != nil {
		mistakes = append(mistakes, err.Error())
	}
	if tz == "" {
		mistakes = append(mistakes, "--tz is required: "+cron.TimezoneRequired)
	} else if err := cron.CheckTimezone(tz); err != nil {
		mistakes = append(mistakes, err.Error())
	}
	if n < 1 || n > maxCronNext {
		mistakes = append(mistakes, fmt.Sprintf("-n %d is outside 1–%d", n, maxCronNext))
	}
	from := time.Now()
	if after != "" {
		t, err := time.Parse(time.RFC3339, after)
		if err != nil {
			mistakes = append(mistakes, fmt.Sprintf("--after %q is not an RFC 3339 time like 2026-03-08T06:00:00Z", after))
		}
		from = t
	}
	if len(mistakes) > 0 {
		return from, Usagef("%s", strings.Join(mistakes, "\n"+binary+": "))
	}
	return from, nil
}
