package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// Where the server cannot store what a panel's import makes (a cluster
// replica: its workers keep the secrets and packages), the panel import
// page says, in the page's language, that the import is a command-line
// step and gives the command; its forms read and store nothing.
func TestOnAClusterReplicaThePanelImportSaysItIsACommandLineStep(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	for _, c := range []struct {
		path string
		form url.Values
		want string
	}{
		{"/definitions/qinglong?lang=en", nil, "The import is a command-line step"},
		{"/definitions/qinglong?lang=zh", nil, "导入需要在命令行完成"},
		{"/definitions/qinglong/preview?lang=en", url.Values{"project": {"jd"}, "timezone": {"UTC"}, "dir": {"/ql/data"}}, "The import is a command-line step"},
		{"/definitions/qinglong/apply?lang=zh", url.Values{"project": {"jd"}, "timezone": {"UTC"}, "dir": {"/ql/data"}}, "导入需要在命令行完成"},
	} {
		w := site.send(apitoken.Admin, c.path, c.form)
		body := w.Body.String()
		if w.Code != http.StatusOK || !strings.Contains(body, c.want) || !strings.Contains(body, "<code>ql import qinglong DIR") ||
			strings.Contains(body, `id="qlp-form"`) || strings.Contains(body, `id="qlp-errors"`) {
			t.Errorf("%s: %d; want the command-line step said (%q), no form and no refusal:\n%s", c.path, w.Code, c.want, body)
		}
	}
}
