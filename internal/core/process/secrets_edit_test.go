package process

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

func TestASetSecretIsStoredOwnerOnlyAndResolvesForTheNextRun(t *testing.T) {
	t.Parallel()
	s := Secrets{Path: filepath.Join(t.TempDir(), "secrets.json")}
	replaced, err := s.Set("api-token", secretValue)
	if err != nil || replaced {
		t.Fatalf("first set: replaced=%v err=%v", replaced, err)
	}
	info, err := os.Stat(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %04o, want 0600", info.Mode().Perm())
	}
	got, err := s.Resolve([]string{"api-token"})
	if err != nil || got["api-token"] != secretValue {
		t.Fatalf("resolve after set: %v, %v", got, err)
	}
	replaced, err = s.Set("api-token", "an0ther-value")
	if err != nil || !replaced {
		t.Fatalf("second set: replaced=%v err=%v", replaced, err)
	}
	if got, _ := s.Resolve([]string{"api-token"}); got["api-token"] != "an0ther-value" {
		t.Fatalf("resolve after replace: %v", got)
	}
}

func TestDeletingASecretKeepsTheOthersAndANameNotDefinedChangesNothing(t *testing.T) {
	t.Parallel()
	s := Secrets{Path: filepath.Join(t.TempDir(), "secrets.json")}
	for _, name := range []string{"a-token", "b-token", "c-token"} {
		if _, err := s.Set(name, secretValue); err != nil {
			t.Fatal(err)
		}
	}
	existed, err := s.Delete("b-token")
	if err != nil || !existed {
		t.Fatalf("delete: existed=%v err=%v", existed, err)
	}
	names, err := s.Names()
	if err != nil || strings.Join(names, ",") != "a-token,c-token" {
		t.Fatalf("names after delete: %v, %v", names, err)
	}
	before, err := os.Stat(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	existed, err = s.Delete("b-token")
	if err != nil || existed {
		t.Fatalf("second delete: existed=%v err=%v", existed, err)
	}
	after, err := os.Stat(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Fatal("deleting a name the file does not define rewrote the file")
	}
}

func TestEditsAtTheSameTimeLoseNoSecret(t *testing.T) {
	t.Parallel()
	s := Secrets{Path: filepath.Join(t.TempDir(), "secrets.json")}
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			if _, err := s.Set(fmt.Sprintf("token-%02d", i), secretValue); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	names, err := s.Names()
	if err != nil || len(names) != n {
		t.Fatalf("%d names after %d concurrent sets (%v): %v", len(names), n, err, names)
	}
	leftovers, err := filepath.Glob(filepath.Join(filepath.Dir(s.Path), ".qinglong-secrets-*"))
	if err != nil || len(leftovers) != 0 {
		t.Fatalf("temporary files left behind: %v %v", leftovers, err)
	}
}

func TestAnEditRefusesAFileARunCouldNotUseAndLeavesItAlone(t *testing.T) {
	t.Parallel()
	s := writeSecrets(t, t.TempDir(), 0o644)
	_, err := s.Set("other", secretValue)
	var fe *SecretsFileError
	if !errors.As(err, &fe) || fe.Cause != SecretsMode {
		t.Fatalf("set on a mode 0644 file: %v, want a SecretsFileError of cause mode", err)
	}
	if !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("the refusal does not say what to do: %v", err)
	}
	data, err := os.ReadFile(s.Path)
	if err != nil || strings.Contains(string(data), "other") {
		t.Fatalf("the refused file was changed: %q %v", data, err)
	}
}

func TestSecretValuesARunCannotUseAreRefusedWithoutQuotingThem(t *testing.T) {
	t.Parallel()
	s := Secrets{Path: filepath.Join(t.TempDir(), "secrets.json")}
	cases := map[string]struct {
		value string
		says  string
	}{
		"too short":  {"ab1", "at least 4"},
		"too long":   {strings.Repeat("x", MaxSecretLen+1), "the limit is"},
		"NUL byte":   {"abc\x00def", "NUL"},
		"not UTF-8":  {"abc\xffdef", "not UTF-8"},
		"empty name": {secretValue, "secret name"},
	}
	for name, c := range cases {
		secret := "token"
		if name == "empty name" {
			secret = ""
		}
		_, err := s.Set(secret, c.value)
		if qlerror.CodeOf(err) != qlerror.Invalid || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want an invalid-input error saying %q", name, err, c.says)
			continue
		}
		if len(c.value) >= 3 && strings.Contains(err.Error(), c.value) {
			t.Errorf("%s: the error quotes the value: %v", name, err)
		}
	}
	if _, err := os.Stat(s.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused value created the file: %v", err)
	}
}

func TestSecretNamesAreThoseATaskOrAChannelCanReferTo(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"api-token", "SMTP_PASSWORD", "a.b_c-9", "alpha/API_TOKEN", strings.Repeat("a", MaxSecretNameLen)} {
		if err := CheckSecretName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "has space", "Upper/name", "a/b/c", "/name", "alpha/", "ünïcode", strings.Repeat("a", MaxSecretNameLen+1)} {
		if err := CheckSecretName(bad); qlerror.CodeOf(err) != qlerror.Invalid {
			t.Errorf("%q accepted: %v", bad, err)
		}
	}
}

func TestRootEditsTheServersFileAndKeepsItTheServersOwn(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: it edits a file that belongs to another user")
	}
	t.Parallel()
	dir := t.TempDir()
	const server = 54321
	if err := os.Chown(dir, server, server); err != nil {
		t.Fatal(err)
	}
	s := Secrets{Path: filepath.Join(dir, "secrets.json")}
	if _, err := s.Set("api-token", secretValue); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set("other-token", secretValue); err != nil {
		t.Fatalf("second edit of the server's file as root: %v", err)
	}
	info, err := os.Stat(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	st := info.Sys().(*syscall.Stat_t)
	if st.Uid != server || info.Mode().Perm() != 0o600 {
		t.Fatalf("owner %d mode %04o, want %d and 0600", st.Uid, info.Mode().Perm(), server)
	}
}
