package apply

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

func cappedFile(maxRunning string) string {
	return "project: team\nmaxRunning: " + maxRunning + "\ntasks:\n  - name: job\n    script: echo\n"
}

func TestAProjectsMaxRunningIsReadAsAWholeNumberOfRuns(t *testing.T) {
	doc, err := Parse("team.yaml", []byte(cappedFile("3")))
	if err != nil || doc.MaxRunning != 3 {
		t.Fatalf("maxRunning: 3 read as %d, %v; want 3", doc.MaxRunning, err)
	}
	if doc, err = Parse("team.yaml", []byte("project: team\n")); err != nil || doc.MaxRunning != 0 {
		t.Fatalf("a file without maxRunning read as %d, %v; want 0 (no cap)", doc.MaxRunning, err)
	}
}

// A cap of none, a negative one, one past any server's slots, and one
// that is no whole number are each refused, saying the range, that
// leaving the key out is no cap, and the line.
func TestAMaxRunningOfZeroNegativeOrAbsurdIsRefusedSayingWhatItTakes(t *testing.T) {
	for _, v := range []string{"0", "-1", "10001", "2.5", "three", "[1]", "null"} {
		_, err := Parse("team.yaml", []byte(cappedFile(v)))
		if qlerror.ReasonOf(err) != validate.RefusalOutOfRange {
			t.Errorf("maxRunning: %s: %v (reason %q); want %s", v, err, qlerror.ReasonOf(err), validate.RefusalOutOfRange)
			continue
		}
		for _, want := range []string{"team.yaml:2", "maxRunning", "1 … 10000", "leave it out for no cap"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("maxRunning: %s: refusal %q does not say %q", v, err, want)
			}
		}
	}
}
