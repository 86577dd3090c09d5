package pgtest

import (
	"context"
	"sync"
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
// login that must own their server use it (PasswordServer is shared).
func NewPasswordServer(t testing.TB) *Srv {
	t.Helper()
	if !mainRunning.Load() {
		t.Fatal("pgtest: add func TestMain(m *testing.M) { pgtest.Main(m) } to this package; Main is what stops the server after the tests")
	}
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	s, err := StartServer(ctx, Options{HBA: passwordHBA})
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

var (
	passwordOnce   sync.Once
	passwordShared *Srv
	passwordErr    error
)

// PasswordServer is the test binary's password server (NewPasswordServer's
// logins), started on first use and stopped by Main with the shared
// server: its initdb is paid once, however many tests of a refused login
// share it. Roles belong to a server, not to a database, so each test
// names the roles it creates there its own way (a unique prefix).
func PasswordServer(t testing.TB) *Srv {
	t.Helper()
	if !mainRunning.Load() {
		t.Fatal("pgtest: add func TestMain(m *testing.M) { pgtest.Main(m) } to this package; Main is what stops the server after the tests")
	}
	passwordOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		passwordShared, passwordErr = startServer(ctx, Options{HBA: passwordHBA}, true)
	})
	if passwordErr != nil {
		t.Fatalf("pgtest: the password server: %v", passwordErr)
	}
	return passwordShared
}
