package process

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

const secretValue = "v3ry-s3cret-value"

func writeSecrets(t *testing.T, dir string, mode os.FileMode) Secrets {
	t.Helper()
	path := filepath.Join(dir, "secrets.json")
	if err := os.WriteFile(path, []byte(`{"api-token": "`+secretValue+`"}`), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return Secrets{Path: path}
}

func TestSecretsResolveFromAnOwnerOnlyFile(t *testing.T) {
	t.Parallel()
	s := writeSecrets(t, t.TempDir(), 0o600)
	got, err := s.Resolve([]string{"api-token"})
	if err != nil || got["api-token"] != secretValue {
		t.Fatalf("resolve: %v, %v", got, err)
	}
}

func TestSecretErrorsSayWhatToDoAndNeverShowValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := map[string]struct {
		s    Secrets
		refs []string
		want string
	}{
		"readable by others": {writeSecrets(t, filepath.Join(dir), 0o644), []string{"api-token"}, "chmod 600"},
		"undefined name":     {writeSecrets(t, t.TempDir(), 0o600), []string{"db-password"}, `secret "db-password" is not defined`},
		"no file":            {Secrets{Path: filepath.Join(t.TempDir(), "none.json")}, []string{"api-token"}, "does not exist"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := c.s.Resolve(c.refs)
			if !qlerror.Is(err, qlerror.FailedPrecondition) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v; want failed_precondition mentioning %q", err, c.want)
			}
			if strings.Contains(err.Error(), secretValue) {
				t.Fatalf("error message shows a secret value: %v", err)
			}
		})
	}
}

func TestCorruptSecretsFileErrorHidesItsContent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "secrets.json")
	if err := os.WriteFile(path, []byte(`{"api-token": "`+secretValue+`", "n": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Secrets{Path: path}.Resolve([]string{"api-token"})
	if !qlerror.Is(err, qlerror.FailedPrecondition) || strings.Contains(err.Error(), secretValue) {
		t.Fatalf("corrupt file: %v", err)
	}
}

// A store that knows the command setting a secret in it refuses a missing
// secret with that command, whether the file lacks the name or is not
// there at all.
func TestAMissingSecretIsRefusedWithTheCommandThatSetsIt(t *testing.T) {
	t.Parallel()
	setBy := func(name string) string { return "ql secrets set " + name + " --data-dir /srv/ql" }
	defined := writeSecrets(t, t.TempDir(), 0o600)
	for name, s := range map[string]Secrets{
		"file without the name": {Path: defined.Path, SetBy: setBy},
		"no file":               {Path: filepath.Join(t.TempDir(), "none.json"), SetBy: setBy},
	} {
		_, err := s.Resolve([]string{"db-password"})
		want := "set it with `ql secrets set db-password --data-dir /srv/ql`"
		if !qlerror.Is(err, qlerror.FailedPrecondition) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), s.Path) {
			t.Errorf("%s: error %v; want failed_precondition naming %s and saying %q", name, err, s.Path, want)
		}
	}
}
