package console

import (
	"html"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/task"
)

// An Edit task or Edit schedule form opened at an address that names no
// project or no task or trigger (a link cut short, a bookmark) answers a
// page in the page's language saying what is missing, never an empty one.
func TestAnEditFormOpenedWithoutWhatItEditsSaysWhatIsMissing(t *testing.T) {
	t.Parallel()
	server := newBatchSite(t, func(cfg *Config) {
		svc := catalog.Service{Store: cfg.Export.(catalog.Store), Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
		cfg.Definitions = &svc
	})
	for path, want := range map[string]string{
		"/definitions/task?lang=zh":                  "请填写项目名称。",
		"/definitions/schedule?lang=zh":              "请填写项目名称。",
		"/definitions/task?project=shop&lang=zh":     "项目“shop”没有名为“”的任务",
		"/definitions/schedule?project=shop&lang=zh": "项目“shop”没有名为“”的触发器",
	} {
		w := server.do(apitoken.Admin, path, nil)
		if page := html.UnescapeString(w.Body.String()); w.Code < http.StatusBadRequest || !strings.Contains(page, `id="error-message"`) || !strings.Contains(page, want) {
			t.Errorf("%s: %d; want a refusal page saying %q:\n%s", path, w.Code, want, page)
		}
	}
}
