package pgtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// passwordHBA lets the superuser in as the harness does (its URLs carry no
// password) and asks every other TCP login for its password.
const passwordHBA = `local all all trust
host all postgres 127.0.0.1/32 trust
host all all 127.0.0.1/32 scram-sha-256
`

// NewPasswordServer starts a server of the test's own on which every TCP
// login but the superuser's must give its password (SCRAM), stopped on
// cleanup. The shared server trusts every login, so a wrong password can
// only be refused here; it costs an initdb, so only tests of a refused
// login use it.
func NewPasswordServer(t testing.TB) *Srv {
	t.Helper()
	if !mainRunning.Load() {
		t.Fatal("pgtest: add func TestMain(m *testing.M) { pgtest.Main(m) } to this package; Main is what stops the server after the tests")
	}
	hba := filepath.Join(TempDir(t), "pg_hba.conf")
	if err := os.WriteFile(hba, []byte(passwordHBA), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	s, err := StartServer(ctx, Options{ExtraConf: map[string]string{"hba_file": hba}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(context.Background()); err != nil {
			t.Errorf("pgtest: stopping the password server: %v", err)
		}
	})
	return s
}
