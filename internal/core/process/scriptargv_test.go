package process

import (
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// Every account of the machine reads every process's command line (ps,
// /proc/PID/cmdline); a shell-mode script, which may hold a cookie or a
// token, must not be there, nor left in the environment of what the
// script starts, and the script must still run as written.
func TestAShellScriptIsInNoCommandLineOtherAccountsCanRead(t *testing.T) {
	t.Parallel()
	const secret = "pt_key=SECRET-COOKIE-7f3a"
	script := "cookie='" + secret + "'\n" +
		"tr '\\0' ' ' </proc/$$/cmdline; echo\n" +
		"env | grep -c " + scriptVariable + " || true\n" +
		"echo \"${ql_script-gone} ${cookie#pt_key=}\"\n"
	res, out, _ := runShell(t, t.Context(), script, time.Minute)
	if res.State != run.AttemptSucceeded {
		t.Fatalf("state %s; want succeeded; output:\n%s", res.State, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("output %q; want the shell's command line, a count and the script's last line", out)
	}
	if strings.Contains(lines[0], "SECRET") {
		t.Errorf("the shell's command line shows the script: %q", lines[0])
	}
	if lines[1] != "0" {
		t.Errorf("%s is in the environment of a command the script starts (%s times); want it taken out", scriptVariable, lines[1])
	}
	if lines[2] != "gone SECRET-COOKIE-7f3a" {
		t.Errorf("the script's last line said %q; want it run as written, with nothing of the shell's own left in its variables", lines[2])
	}
}
