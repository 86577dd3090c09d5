package console

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// The notice of a project's pause says, in English and in Chinese, how
// many Runs queued before it still start and how to drop them; one
// without queued Runs says nothing of them.
func TestAPauseNoticeSaysHowManyQueuedRunsStillStart(t *testing.T) {
	for _, c := range []struct{ lang, query, want string }{
		{"en", "project_done=paused&n=2&queued=3", "Project paused with 2 of its triggers. 3 runs queued before the pause still start; cancel them in the runs list"},
		{"en", "project_done=paused&n=2&queued=1", "1 run queued before the pause still starts; cancel it"},
		{"zh", "project_done=paused&n=2&queued=3", "暂停前已排队的 3 个运行仍会启动"},
	} {
		r := httptest.NewRequest("GET", "/triggers?lang="+c.lang+"&"+c.query, nil)
		if got := projectDone(r); !strings.Contains(got, c.want) {
			t.Errorf("%s %s: %q; want %q", c.lang, c.query, got, c.want)
		}
	}
	if got := projectDone(httptest.NewRequest("GET", "/triggers?project_done=paused&n=2", nil)); strings.Contains(got, "queued") {
		t.Errorf("a pause with none queued: %q; want nothing said of queued runs", got)
	}
}
