package cli

import (
	"context"
	"strings"
	"testing"
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
