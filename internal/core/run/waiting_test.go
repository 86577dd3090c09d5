package run

import (
	"strings"
	"testing"
)

// A Run waiting on the live workers names them in the right number: one
// live worker is not "the 1 live workers", and several stay plural.
func TestAWaitingMessageNamesOneLiveWorkerInTheSingular(t *testing.T) {
	t.Parallel()
	gpu := map[string]string{"gpu": "a100"}
	for _, c := range []struct {
		w         Waiting
		want, not string
	}{
		{Waiting{Reason: WaitNoMatchingWorker, Labels: gpu, Workers: 1}, "the one live worker does not carry them all", "1 live worker"},
		{Waiting{Reason: WaitNoMatchingWorker, Labels: gpu, Workers: 2}, "none of the 2 live workers carries them all", "one live worker"},
		{Waiting{Reason: WaitWorkersBusy, Labels: gpu, Workers: 1}, "a free slot on the one live worker carrying gpu=a100: it already runs", "1 live worker"},
		{Waiting{Reason: WaitWorkersBusy, Workers: 3}, "a free slot on the 3 live workers taking work: each already runs", "one live worker"},
	} {
		if got := c.w.Message(); !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%s with %d workers: %q, want %q and no %q", c.w.Reason, c.w.Workers, got, c.want, c.not)
		}
	}
}
