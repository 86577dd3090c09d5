package agent

import (
	"log/slog"
	"strings"
	"testing"
)

// The line saying an attempt completed gives its command's exit status as
// a number in both log formats (a text log printed the pointer's address).
func TestTheAttemptCompletedLineGivesTheExitCodeAsANumberInEitherFormat(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			in := newIngress(t, 30_000)
			g := in.enqueue(t, shell(`exit 7`))
			logs := &syncBuffer{}
			var h slog.Handler = slog.NewJSONHandler(logs, nil)
			if format == "text" {
				h = slog.NewTextHandler(logs, nil)
			}
			runAgent(t, in, func(c *Config) { c.Logger = slog.New(h) })
			in.completed(g.AttemptID)
			var line string
			waitFor(t, "the attempt_completed line", func() bool {
				for _, l := range strings.Split(logs.String(), "\n") {
					if strings.Contains(l, "attempt_completed") {
						line = l
						return true
					}
				}
				return false
			})
			want := map[string]string{"text": "exit_code=7 ", "json": `"exit_code":7,`}[format]
			if !strings.Contains(line, want) {
				t.Fatalf("the completed line does not give exit code 7 as %q:\n%s", want, line)
			}
		})
	}
}
