package workeringress

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/workerproto"
)

// A registration that replaces a live session of its worker under other
// labels (a second process given the credential, or a restart after a
// crash with new --labels) is logged with both sets: the worker now takes
// other Runs, which nothing else says; one under the same labels is not.
func TestASessionReplacedUnderOtherLabelsIsLoggedWithBoth(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "walker")
	register := func(labels map[string]string) {
		t.Helper()
		var reply workerproto.RegisterReply
		f.call(t, cred, workerproto.PathRegister, workerproto.RegisterRequest{Capacity: 1, Version: "test", Labels: labels}, &reply)
	}
	register(map[string]string{"zone": "eu"})
	register(map[string]string{"zone": "eu"})
	if n := f.logs.count(CodeWorkerLabelsChanged); n != 0 {
		t.Fatalf("a replacement under the same labels logged %s %d times:\n%s", CodeWorkerLabelsChanged, n, f.logs)
	}
	register(map[string]string{"zone": "us", "gpu": "yes"})
	if n := f.logs.count(CodeWorkerLabelsChanged); n != 1 {
		t.Fatalf("a replacement under other labels logged %s %d times, want once:\n%s", CodeWorkerLabelsChanged, n, f.logs)
	}
	for _, line := range strings.Split(f.logs.String(), "\n") {
		if strings.Contains(line, CodeWorkerLabelsChanged) &&
			!(strings.Contains(line, `"labels":"gpu=yes,zone=us"`) && strings.Contains(line, `"replaced_labels":"zone=eu"`) && strings.Contains(line, `"worker":"walker"`)) {
			t.Fatalf("the line does not name the worker and both sets of labels:\n%s", line)
		}
	}
}
