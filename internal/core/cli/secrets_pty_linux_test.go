package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/testkit/syncbuf"
)

// On a terminal `secrets set` asks for the value twice: the same answer
// twice is stored, two that differ are refused (exit 2) and nothing is
// written.
func TestSecretsSetOnATerminalAsksTwiceAndRefusesAMismatch(t *testing.T) {
	t.Parallel()
	file := process.Secrets{Path: filepath.Join(t.TempDir(), "secrets.json")}
	answer := func(first, second string) (int, string) {
		tty, master := openPTY(t)
		root := NewRoot(Options{Binary: "ql"})
		root.SetIn(tty)
		var out, errOut syncbuf.Buffer
		exit := make(chan int, 1)
		go func() {
			exit <- execute(context.Background(), root, "ql", []string{"secrets", "set", "api_token", "--secrets-file", file.Path}, &out, &errOut)
		}()
		for _, step := range []struct{ prompt, line string }{{"Value of secret api_token: ", first}, {"Again: ", second}} {
			for deadline := time.Now().Add(10 * time.Second); !strings.Contains(errOut.String(), step.prompt); time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("no prompt %q: %q", step.prompt, errOut.String())
				}
			}
			if _, err := master.WriteString(step.line + "\n"); err != nil {
				t.Fatal(err)
			}
		}
		code := <-exit
		if strings.Contains(out.String()+errOut.String(), first) {
			t.Errorf("the output holds the value: %q %q", out.String(), errOut.String())
		}
		return code, out.String() + errOut.String()
	}
	if code, said := answer("typed-value", "other-value"); code != ExitUsage || !strings.Contains(said, "the two values differ; nothing was changed") {
		t.Fatalf("a mismatch: %d %q; want exit 2", code, said)
	}
	if names, err := file.Names(); err != nil || len(names) != 0 {
		t.Fatalf("after a mismatch the file defines %v, %v; want nothing", names, err)
	}
	if code, said := answer("typed-value", "typed-value"); code != 0 || !strings.Contains(said, "secret api_token: created") {
		t.Fatalf("the same value twice: %d %q", code, said)
	}
	if got, err := file.Resolve([]string{"api_token"}); err != nil || got["api_token"] != "typed-value" {
		t.Fatalf("resolves %q, %v; want the typed value", got["api_token"], err)
	}
}
