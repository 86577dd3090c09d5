package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// A list setting given more than once keeps every use, on the command line
// and as a YAML sequence in the config file, as the comma-separated form
// does; a sequence for a setting of one value is refused, naming it.
func TestAListFlagGivenTwiceKeepsBothValues(t *testing.T) {
	t.Parallel()
	var got ServeFlags
	opts := Options{Binary: "ql", Profiles: map[string]Profile{ProfileStandalone: {Serve: func(_ context.Context, _ *cobra.Command, f *ServeFlags) error {
		got = *f
		return nil
	}}}}
	if code, _, stderr := qlWith(t, opts, "serve", "--allowed-hosts", "a.example", "--allowed-hosts", "b.example,c.example",
		"--trusted-proxies", "10.0.0.1", "--trusted-proxies", "10.0.0.2"); code != 0 {
		t.Fatalf("serve with repeated list flags: exit %d: %s", code, stderr)
	}
	if got.AllowedHosts != "a.example,b.example,c.example" || got.TrustedProxies != "10.0.0.1,10.0.0.2" {
		t.Fatalf("repeated flags gave allowed hosts %q and trusted proxies %q, want every use kept", got.AllowedHosts, got.TrustedProxies)
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "serve.yaml")
	if err := os.WriteFile(config, []byte("allowed-hosts: [a.example, b.example]\ntrusted-proxies: 10.0.0.1,10.0.0.2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := qlWith(t, opts, "serve", "--config", config); code != 0 {
		t.Fatalf("serve with a list in its config file: exit %d: %s", code, stderr)
	}
	if got.AllowedHosts != "a.example,b.example" || got.TrustedProxies != "10.0.0.1,10.0.0.2" {
		t.Fatalf("the config file gave allowed hosts %q and trusted proxies %q, want both lists whole", got.AllowedHosts, got.TrustedProxies)
	}
	scalar := filepath.Join(dir, "scalar.yaml")
	if err := os.WriteFile(scalar, []byte("page-size: [16, 32]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := qlWith(t, opts, "serve", "--config", scalar); code != 2 || !strings.Contains(stderr, "page-size takes one value, not a list") {
		t.Fatalf("a list for a setting of one value: exit %d, %q; want exit 2 naming it", code, stderr)
	}
}
