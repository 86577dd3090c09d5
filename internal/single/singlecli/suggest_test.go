package singlecli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/single/server"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// quoted is a command a message tells the user to run, in backquotes.
var quoted = regexp.MustCompile("`(ql-edge [^`]+)`")

// paste runs the command in backquotes after marker in msg as a POSIX
// shell reads it (its words split and unquoted by sh), and returns its
// exit code and output.
func paste(t *testing.T, msg, marker string) (string, int, string, string) {
	t.Helper()
	_, after, ok := strings.Cut(msg, marker)
	m := quoted.FindStringSubmatch(after)
	if !ok || m == nil {
		t.Fatalf("%q names no command after %q", msg, marker)
	}
	words, err := exec.Command("sh", "-c", "set -- "+m[1]+`; for w in "$@"; do printf '%s\0' "$w"; done`).Output()
	if err != nil {
		t.Fatalf("sh cannot read %q: %v", m[1], err)
	}
	args := strings.Split(strings.TrimSuffix(string(words), "\x00"), "\x00")
	if args[0] != "ql-edge" {
		t.Fatalf("%q does not start with the binary", m[1])
	}
	code, out, errOut := ql(t, args[1:]...)
	return m[1], code, out, errOut
}

// Every command the CLI prints for the user to run next works pasted as it
// is: it names the trigger with its project, so a trigger of the same name
// in another project does not make it ambiguous, and it carries the
// --data-dir the user gave (quoted for the shell), so it reaches the same
// database rather than the working directory's.
func TestEverySuggestedCommandWorksWhenPasted(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "my data")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sqlitetest.CopyMigrated(t, server.LayoutOf(dir).DB)
	for _, p := range []string{"alpha", "beta"} {
		if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, p+".yaml", projectFile(p, "tick")), "--data-dir", dir); code != 0 {
			t.Fatalf("apply %s: %d %q %q", p, code, out, errOut)
		}
	}

	code, out, errOut := ql(t, "triggers", "disable", "tick", "--project", "alpha", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("disable: %d %q %q", code, out, errOut)
	}
	if cmd, code, _, errOut := paste(t, out, "enable it with "); code != 0 {
		t.Fatalf("the hint of disable, %q, pasted: exit %d %q", cmd, code, errOut)
	}
	if code, out, errOut := ql(t, "triggers", "disable", "alpha/tick", "--data-dir", dir); code != 0 {
		t.Fatalf("disable again: %d %q %q", code, out, errOut)
	}
	code, _, errOut = ql(t, "triggers", "run", "tick", "--project", "alpha", "--data-dir", dir)
	if code != 4 {
		t.Fatalf("run now of a disabled trigger: %d %q; want 4", code, errOut)
	}
	if cmd, code, _, errOut := paste(t, errOut, "enable it with "); code != 0 {
		t.Fatalf("the hint of the disabled refusal, %q, pasted: exit %d %q", cmd, code, errOut)
	}

	code, out, errOut = ql(t, "triggers", "pause", "tick", "--project", "alpha", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("pause: %d %q %q", code, out, errOut)
	}
	if cmd, code, out, errOut := paste(t, out, "resume it with "); code != 0 || !strings.Contains(out, "resumed") {
		t.Fatalf("the hint of pause, %q, pasted: exit %d %q %q", cmd, code, out, errOut)
	}

	code, out, errOut = ql(t, "triggers", "run", "alpha/tick", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("run now: %d %q %q", code, out, errOut)
	}
	if cmd, code, _, errOut := paste(t, out, "queued "); code != 0 {
		t.Fatalf("the hint of run now, %q, pasted: exit %d %q", cmd, code, errOut)
	}
	if want := "`ql-edge serve --data-dir '" + dir + "'"; !strings.Contains(errOut, want) {
		t.Fatalf("the note of run now %q does not name the server to start as %s…`", errOut, want)
	}
}

// Over --api-url, the hint of a disabled trigger's refusal names it by
// project and name and carries the server's address, so it works pasted
// as it is too. Not parallel: it sets $QL_TOKEN.
func TestASuggestedCommandOverTheAPIWorksWhenPasted(t *testing.T) {
	dir := installedDir(t)
	for _, p := range []string{"alpha", "beta"} {
		if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, p+".yaml", projectFile(p, "tick")), "--data-dir", dir); code != 0 {
			t.Fatalf("apply %s: %d %q %q", p, code, out, errOut)
		}
	}
	admin := newToken(t, dir, "admin", "admin")
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", admin)
	if code, out, errOut := ql(t, "triggers", "disable", "alpha/tick", "--api-url", base); code != 0 {
		t.Fatalf("disable: %d %q %q", code, out, errOut)
	}
	code, _, errOut := ql(t, "triggers", "run", "tick", "--project", "alpha", "--api-url", base)
	if code != 4 || !strings.HasPrefix(errOut, "ql-edge: server: trigger tick (") {
		t.Fatalf("run now of a disabled trigger over the API: %d %q; want 4, the server's refusal", code, errOut)
	}
	cmd, code, _, pastedErr := paste(t, errOut, "enable it with ")
	if code != 0 || !strings.Contains(cmd, "alpha/tick") || !strings.Contains(cmd, "--api-url "+base) {
		t.Fatalf("the hint %q, pasted: exit %d %q; want it to enable alpha/tick on the server", cmd, code, pastedErr)
	}
}
