package agent

import (
	"strings"
	"testing"
)

// A worker asking for more commands at once than its credential allows
// runs what the credential allows and says so once, naming both figures
// and how to raise the cap; one within the cap says nothing.
func TestAWorkerCappedBelowItsConcurrencyByItsCredentialSaysSoOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		concurrency, lines int
	}{{8, 1}, {4, 0}} {
		in := newIngress(t, 30_000)
		in.maxCapacity = 4
		w := runAgent(t, in, func(cfg *Config) { cfg.Concurrency = c.concurrency })
		waitFor(t, "the registration", func() bool { return strings.Contains(w.logs.String(), "worker_registered") })
		if _, err := w.stop(); err != nil {
			t.Fatal(err)
		}
		var lines []string
		for line := range strings.Lines(w.logs.String()) {
			if strings.Contains(line, `"code":"worker_capacity_capped"`) {
				lines = append(lines, line)
			}
		}
		if len(lines) != c.lines {
			t.Fatalf("--concurrency %d under a cap of 4: %d capped lines, want %d: %q", c.concurrency, len(lines), c.lines, lines)
		}
		if c.lines == 1 && (!strings.Contains(lines[0], `"level":"WARN"`) || !strings.Contains(lines[0], `"capacity":4`) ||
			!strings.Contains(lines[0], `"concurrency":8`) || !strings.Contains(lines[0], "--max-concurrency")) {
			t.Fatalf("the capped line %q: want a warning with capacity 4, concurrency 8 and how to raise the cap", lines[0])
		}
	}
}
