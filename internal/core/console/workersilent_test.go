package console

import (
	"bytes"
	"strings"
	"testing"
)

// The Workers page says how long ago each worker's last heartbeat was, and
// of a worker with a live session gone unheard for two heartbeats (a
// frozen process keeps its session until the lease passes) that it is
// silent and for how long, in both languages; a worker heartbeating is not
// said to be silent.
func TestTheWorkersPageSaysHowLongAgoEachHeartbeatWasAndWhichWorkerIsSilent(t *testing.T) {
	t.Parallel()
	last, fresh, stale := int64(1_790_000_000_000), int64(3_400), int64(25_700)
	data := []Worker{
		{Name: "fresh", State: "active", Sessions: 1, LastHeartbeatMs: &last, HeartbeatAgeMs: &fresh},
		{Name: "frozen", State: "active", Sessions: 1, LastHeartbeatMs: &last, HeartbeatAgeMs: &stale, SilentForMs: stale},
	}
	for l, want := range map[string][]string{
		"en": {`<small class="heartbeat-age">3s ago</small>`, `<small class="heartbeat-age">25s ago</small>`, `<small class="worker-silent">silent 25s: not heard from`},
		"zh": {`<small class="heartbeat-age">3秒前</small>`, `<small class="heartbeat-age">25秒前</small>`, `<small class="worker-silent">已 25秒 没有消息`},
	} {
		var buf bytes.Buffer
		if err := parseTemplates("ql", "")["workers"].ExecuteTemplate(&buf, "layout", page{Lang: l, Data: data}); err != nil {
			t.Fatal(err)
		}
		p := buf.String()
		for _, w := range want {
			if !strings.Contains(p, w) {
				t.Errorf("%s: the Workers page does not say %q:\n%s", l, w, p)
			}
		}
		if n := strings.Count(p, "worker-silent"); n != 1 {
			t.Errorf("%s: %d workers said silent, want the frozen one alone", l, n)
		}
	}
}
