package workeringress

import (
	"net/http"
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

// A label the worker adds at registration is held to the rule of a
// placement's labels: one a placement could not name (a space, a quote,
// markup) is refused with 400 naming the label and the rule, and no
// session starts.
func TestAWorkerLabelOutsideThePlacementRuleIsRefusedAtRegistration(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	cred := f.worker(t, "odd")
	for _, c := range []struct {
		labels map[string]string
		want   []string
	}{
		{map[string]string{"zone": `eu "west" <b>`}, []string{`labels.zone`, `"eu \"west\" <b>"`, "letters, digits, '_', '.', ':', '/', '+', '-'"}},
		{map[string]string{"Zone!": "eu"}, []string{`Zone!`, "lower-case letters, digits"}},
	} {
		status, raw, _ := f.post(t, cred, workerproto.PathRegister, workerproto.RegisterRequest{Capacity: 1, Version: "test", Labels: c.labels})
		if status != http.StatusBadRequest || errorOf(t, raw).Code != workerproto.CodeInvalid {
			t.Fatalf("labels %v: %d %s, want 400 %s", c.labels, status, raw, workerproto.CodeInvalid)
		}
		msg := errorOf(t, raw).Message
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("labels %v: %q, want it to say %q", c.labels, msg, w)
			}
		}
	}
	if n := f.env.Int(t, `SELECT count(*) FROM qinglong.worker_sessions`); n != 0 {
		t.Fatalf("%d sessions started by refused registrations", n)
	}
}
