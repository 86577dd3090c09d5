package process

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A secrets file that is a symbolic link is refused, not followed, by a
// Run that reads it and by the commands that edit it: the link could
// point the server or the worker at any other of its user's private
// files, and an edit's rename would replace the link anyway. The refusal
// says what to put there and shows nothing of the target.
func TestASymlinkedSecretsFileIsRefusedNotFollowed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := writeSecrets(t, dir, 0o600)
	link := filepath.Join(dir, "linked.json")
	if err := os.Symlink(target.Path, link); err != nil {
		t.Fatal(err)
	}
	s := Secrets{Path: link}
	_, resolveErr := s.Resolve([]string{"api-token"})
	_, namesErr := s.Names()
	_, setErr := s.Set("other", "value-1234")
	for what, err := range map[string]error{"resolve": resolveErr, "list": namesErr, "set": setErr} {
		var fe *SecretsFileError
		if !errors.As(err, &fe) || fe.Cause != SecretsNotRegular || !qlerror.Is(err, qlerror.FailedPrecondition) ||
			!strings.Contains(err.Error(), "is a symbolic link, which is not followed: replace the link with the file itself") {
			t.Errorf("%s through a link: %v; want it refused as a link, saying what to do", what, err)
			continue
		}
		if strings.Contains(err.Error(), secretValue) || strings.Contains(err.Error(), "api-token") {
			t.Errorf("%s: the refusal shows the target's content: %v", what, err)
		}
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the refused set replaced the link: %v, %v", info, err)
	}
}
