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
	const unnamed = "此地址没有指明要编辑的内容：请在触发器页面上用“编辑任务”或“编辑计划”按钮打开表单。"
	for path, want := range map[string]string{
		"/definitions/task?lang=zh":                     unnamed,
		"/definitions/schedule?lang=zh":                 unnamed,
		"/definitions/task?project=shop&lang=zh":        unnamed,
		"/definitions/schedule?trigger=a&lang=zh":       unnamed,
		"/definitions/task?project=shop&task=x&lang=zh": "项目“shop”没有名为“x”的任务",
	} {
		w := server.do(apitoken.Admin, path, nil)
		if page := html.UnescapeString(w.Body.String()); w.Code < http.StatusBadRequest || !strings.Contains(page, `id="error-message"`) || !strings.Contains(page, want) {
			t.Errorf("%s: %d; want a refusal page saying %q:\n%s", path, w.Code, want, page)
		}
	}
}
