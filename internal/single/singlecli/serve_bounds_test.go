package singlecli

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/single/executor"
)

// Every refusal of one serve setting reads alike, whatever the value: a 0
// given, which the server would read as the setting left out, is refused
// with the range the server refuses any other value outside it with, in
// the same words, and `serve --help` states that range.
func TestEveryRefusalOfAServeSettingStatesTheSameRange(t *testing.T) {
	t.Parallel()
	_, help, _ := ql(t, "serve", "--help")
	help = strings.Join(strings.Fields(help), " ")
	tooLarge := map[string]string{"--page-size": "257", "--cadence": "2h", "--stop-timeout": "1m", "--concurrency": "100000",
		"--log-max-bytes": "2GiB", "--notify-backoff": "2h", "--notify-max-attempts": "101"}
	if executor.MaxConcurrency >= 100000 {
		t.Fatalf("--concurrency 100000 is no longer out of range (at most %d)", executor.MaxConcurrency)
	}
	for _, profile := range []string{"standalone", "edge"} {
		for flag, large := range tooLarge {
			_, _, zero := ql(t, "serve", "--profile", profile, "--data-dir", t.TempDir(), flag, "0")
			_, _, other := ql(t, "serve", "--profile", profile, "--data-dir", t.TempDir(), flag, large)
			zero, _, _ = strings.Cut(zero, "\n")
			other, _, _ = strings.Cut(other, "\n")
			_, bound, ok := strings.Cut(zero, flag+" 0 is outside ")
			if !ok || bound == "" {
				t.Errorf("%s %s 0: %q; want it refused as outside the flag's range", profile, flag, zero)
				continue
			}
			if !strings.HasPrefix(other, "ql-edge: "+flag+" ") || !strings.HasSuffix(other, " is outside "+bound) {
				t.Errorf("%s %s %s: %q; want it refused in the words of %q", profile, flag, large, other, zero)
			}
			if !strings.Contains(help, "("+bound+";") {
				t.Errorf("serve --help does not state %s's range %s", flag, bound)
			}
		}
	}
}
