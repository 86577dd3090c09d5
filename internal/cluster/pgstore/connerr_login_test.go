package pgstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/pgtest"
)

// A refused login leads with what its SQLSTATE says: 28000 (no pg_hba.conf
// line, a role that does not exist or may not log in) with pg_hba.conf,
// before any word of the password; 28P01 with the password, naming every
// place one comes from, a service file's entry included.
func TestARefusedLoginLeadsWithTheCauseItsSQLSTATENames(t *testing.T) {
	t.Parallel()
	srv := pgtest.PasswordServer(t)
	db := srv.NewDatabase(t)
	const password = "Right-pw-4242-4242"
	prefix := uniquePrefix(t)
	if err := createLogin(t, db.URL, prefix+"wrong_pw", password); err != nil {
		t.Fatal(err)
	}
	if err := createRole(t, db.URL, prefix+"no_login", "NOLOGIN PASSWORD '"+password+"'"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		role, password, state, lead string
		also                        []string
	}{
		{prefix + "wrong_pw", "Wrong-pw-0815", "28P01", "a wrong password", []string{"service= in the URL or $PGSERVICE", "$PGPASSFILE"}},
		{prefix + "no_login", password, "28000", "before any password: no line of pg_hba.conf", []string{"may not log in", "`ql db roles`"}},
	} {
		url := fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s", c.role, c.password, srv.Port(), db.Name)
		for step, open := range connectsAs {
			err := open(t.Context(), url)
			msg := fmt.Sprint(err)
			if sqlState(err) != c.state {
				t.Errorf("%s as %s: %v; want SQLSTATE %s", step, c.role, err, c.state)
				continue
			}
			lead := strings.Index(msg, c.lead)
			if lead < 0 || (c.state == "28000" && strings.Index(msg, "password") < lead) {
				t.Errorf("%s as %s (%s): %q; want it to lead with %q", step, c.role, c.state, msg, c.lead)
			}
			for _, want := range c.also {
				if !strings.Contains(msg, want) {
					t.Errorf("%s as %s (%s): %q; want it to say %q", step, c.role, c.state, msg, want)
				}
			}
		}
	}
}
