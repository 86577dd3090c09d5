package console

import (
	"html"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/process"
)

// The Secrets page says how a task reads a secret — the env entry to
// write in its definitions file, and the variable its command sees —
// in English and in Chinese, with the entry set as code: someone used
// to a panel's page of environment variables finds no other way there.
func TestTheSecretsPageSaysHowATaskReadsASecretAsAnEnvironmentVariable(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, func(cfg *Config) {
		canPublish(cfg)
		cfg.Secrets = &process.Secrets{Path: filepath.Join(t.TempDir(), "qinglong-secrets.json")}
	})
	for l, want := range map[string][]string{
		"en": {"<code>env: {JD_COOKIE: {secret: JD_COOKIE}}</code>", "<code>$JD_COOKIE</code>", "<code>urlSecret</code>"},
		"zh": {"<code>env: {JD_COOKIE: {secret: JD_COOKIE}}</code>", "<code>$JD_COOKIE</code>", "任务以环境变量读取密钥", "<code>urlSecret</code>"},
	} {
		page := html.UnescapeString(site.do(apitoken.Admin, "/secrets?lang="+l, nil).Body.String())
		_, howto, ok := strings.Cut(page, `id="sec-howto">`)
		howto, _, _ = strings.Cut(howto, "</p>")
		for _, w := range want {
			if !ok || !strings.Contains(howto, w) {
				t.Errorf("%s: the Secrets page does not say %q:\n%s", l, w, page)
			}
		}
	}
}
