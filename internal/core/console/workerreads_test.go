package console

import (
	"bytes"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// The Workers page shows which grant fields each running worker reads, and
// says of one that reads none that it is built before project env and
// what to do, in both languages; a Run waiting only for such workers to
// be upgraded says so on its page in both languages.
func TestTheConsoleSaysWhichWorkersAreTooOldForProjectEnv(t *testing.T) {
	t.Parallel()
	data := []Worker{
		{Name: "new", State: "active", Sessions: 1, Reads: []string{"projectEnv"}},
		{Name: "old", State: "active", Sessions: 1},
		{Name: "idle", State: "active"},
	}
	for l, want := range map[string][]string{
		"en": {`<code>projectEnv</code>`, `none: built before project env`},
		"zh": {`<code>projectEnv</code>`, `无：早于项目 env 构建`},
	} {
		var buf bytes.Buffer
		if err := parseTemplates("ql", "")["workers"].ExecuteTemplate(&buf, "layout", page{Lang: l, Data: data}); err != nil {
			t.Fatal(err)
		}
		p := buf.String()
		for _, w := range want {
			if strings.Count(p, w) != 1 {
				t.Errorf("%s: the Workers page says %q %d times, want once:\n%s", l, w, strings.Count(p, w), p)
			}
		}
	}
	w := &run.Waiting{Reason: run.WaitWorkersTooOld, Workers: 2, Reads: "projectEnv"}
	for l, want := range map[string]string{"en": "Upgrade the workers (ql-worker --version", "zh": "请升级执行节点（ql-worker --version"} {
		if got := waitingText(l, w); !strings.Contains(got, want) || !strings.Contains(got, "2") {
			t.Errorf("%s: the waiting text %q does not say %q for 2 workers", l, got, want)
		}
	}
}
