package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A suggested command carries the database URL the command line gave, but
// never its password, even one that reached it (the command line refuses
// such a URL when the command runs, after its flags are read).
func TestASuggestedCommandNeverRepeatsADatabasePassword(t *testing.T) {
	t.Parallel()
	full := Options{Binary: "ql", OpenPostgres: func(context.Context, string) (*Backend, error) { return nil, nil }}
	for _, url := range []string{"postgres://ql_runtime:s3cret@db/qinglong", "postgres://ql_runtime@db/qinglong?password=s3cret&sslmode=verify-full"} {
		cmd, _, err := NewRoot(full).Find([]string{"runs", "cancel"})
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.ParseFlags([]string{"--database-url", url}); err != nil {
			t.Fatal(err)
		}
		got := suggest(cmd, "runs", "show", "ID")
		if strings.Contains(got, "s3cret") || !strings.HasPrefix(got, "ql runs show ID --database-url ") || !strings.Contains(got, "ql_runtime@db/qinglong") {
			t.Errorf("from --database-url %s: %q; want the URL without its password", url, got)
		}
	}
}

// A command an error quotes gets the invocation's --api-url, so it asks
// the same server; but not the command a server's refusal of what it
// cannot do over its API names (run it on the database instead), which
// pointed at that server again would be refused again.
func TestACommandAServerCannotRunOverItsAPIIsNotPointedAtItAgain(t *testing.T) {
	t.Parallel()
	cmd, _, err := NewRoot(Options{Binary: "ql"}).Find([]string{"runs", "cancel"})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.ParseFlags([]string{"--api-url", "https://ql.example:8080"}); err != nil {
		t.Fatal(err)
	}
	missing := qlerror.New(qlerror.NotFound, "server: run X does not exist; list runs with `ql runs list`")
	if got := withLocation(cmd, "ql", missing.Error(), missing); !strings.Contains(got, "`ql runs list --api-url https://ql.example:8080`") {
		t.Errorf("%q; want the listing asked of the same server", got)
	}
	cannot := qlerror.New(qlerror.FailedPrecondition, "server: this server cannot cancel runs over the API; use `ql runs cancel`").Because(httpapi.RefusalNotOverTheAPI)
	if got := withLocation(cmd, "ql", cannot.Error(), cannot); !strings.Contains(got, "use `ql runs cancel`") {
		t.Errorf("%q; want the command named as it is, not at the server that refused it", got)
	}
}
