package server

import (
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// With --run-as another account and the default scripts folder, inside
// the data directory no other account may enter, the tasks could not
// read a script: the start says so in a warning naming --scripts-dir,
// and the Scripts page says it, in English and in Chinese. A
// --scripts-dir outside the data directory is quiet on both.
func TestARunAsAccountThatCannotReadTheScriptsFolderIsSaidAtStartAndOnTheScriptsPage(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("switching the tasks' account needs root")
	}
	outside := filepath.Join(t.TempDir(), "qinglong-scripts")
	for _, c := range []struct {
		name, scriptsDir string
		said             bool
	}{
		{"the default folder inside the data directory", "", true},
		{"a --scripts-dir outside it", outside, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log lockedBuffer
			site := startConsoleSiteConfigured(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce}, "true", func(cfg *Config) {
				cfg.RunAs, cfg.ScriptsDir, cfg.Cadence = task.RunAs{User: "nobody"}, c.scriptsDir, time.Hour
				cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
				// As a first start makes it.
				if err := os.Chmod(cfg.DataDir, 0o700); err != nil {
					t.Fatal(err)
				}
			})
			warned := strings.Contains(log.String(), "code="+CodeScriptsUnreachable)
			if warned != c.said || (c.said && (!strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "--scripts-dir") || !strings.Contains(log.String(), "--run-as nobody"))) {
				t.Errorf("the start's log (want the warning: %v, naming --run-as nobody and --scripts-dir):\n%s", c.said, log.String())
			}
			cl := consoleClient(t)
			site.signIn(t, cl, site.tokens[apitoken.Admin])
			for lang, want := range map[string]string{"en": "cannot read this folder", "zh": "读不到这个文件夹"} {
				_, page := httpcall.Form(t, cl, http.MethodGet, site.base+"/scripts?lang="+lang, nil)
				notice := strings.Contains(page, `id="scr-unreachable"`) && strings.Contains(page, want) && strings.Contains(page, "--scripts-dir")
				if notice != c.said || (!c.said && strings.Contains(page, `id="scr-unreachable"`)) {
					t.Errorf("the Scripts page (%s; want the notice: %v):\n%s", lang, c.said, page)
				}
			}
		})
	}
}
