package cli

import (
	"context"
	"strings"
	"testing"
)

// A script running `triggers run` or `runs rerun` learns from --help that
// the command does not wait for its Run, what follows it to its end, and
// where the answer says why no worker will take it (-o json's waits, with
// its reasons); ql-edge, which has no workers, says only the first two.
func TestRunNowAndRerunHelpSayTheyDoNotWaitAndWhatTheirWaitsHolds(t *testing.T) {
	t.Parallel()
	full := Options{Binary: "ql", OpenPostgres: func(context.Context, string) (*Backend, error) { return nil, nil }}
	edge := Options{Binary: "ql-edge"}
	for _, path := range [][]string{{"triggers", "run"}, {"runs", "rerun"}} {
		for _, c := range []struct {
			opts     Options
			want     []string
			wantNone []string
		}{
			{full, []string{"never waits for it to start or end (--follow does)", "-o json adds waits", "no_worker, workers_draining or no_matching_worker", "`ql runs show`'s waiting"}, nil},
			{edge, []string{"never waits for it to start or end (--follow does)"}, []string{"waits,", "no_worker"}},
		} {
			cmd, _, err := NewRoot(c.opts).Find(path)
			if err != nil {
				t.Fatal(err)
			}
			help := strings.Join(strings.Fields(cmd.Long), " ")
			for _, w := range c.want {
				if !strings.Contains(help, w) {
					t.Errorf("%s %v --help does not say %q:\n%s", c.opts.Binary, path, w, cmd.Long)
				}
			}
			for _, w := range c.wantNone {
				if strings.Contains(help, w) {
					t.Errorf("%s %v --help says %q, which it has no workers for:\n%s", c.opts.Binary, path, w, cmd.Long)
				}
			}
		}
	}
}
