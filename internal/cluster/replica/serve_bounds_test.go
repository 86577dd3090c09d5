package replica

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cli"
)

// Every refusal of one cluster setting reads alike, whatever the value: a
// 0 given, which the replica would read as the setting left out, is
// refused with the range the replica refuses any other value outside it
// with, in the same words, and `serve --help` states that range. A
// single-node setting given 0 is refused as a single-node setting.
func TestEveryRefusalOfAClusterSettingStatesTheSameRange(t *testing.T) {
	t.Parallel()
	// A build with PostgreSQL support; nothing is opened, every value here
	// is refused first.
	opts := cli.Options{Binary: "ql", OpenPostgres: func(context.Context, string) (*cli.Backend, error) { return nil, nil },
		Profiles: map[string]cli.Profile{cli.ProfileCluster: Profile()}}
	serve := func(args ...string) string {
		var out, errOut bytes.Buffer
		cli.Main(context.Background(), opts, append([]string{"serve", "--profile", "cluster", "--database-url", validFlags().DatabaseURL}, args...), &out, &errOut)
		line, _, _ := strings.Cut(errOut.String()+out.String(), "\n")
		return line
	}
	var out bytes.Buffer
	cli.Main(context.Background(), opts, []string{"serve", "--help"}, &out, &out)
	help := strings.Join(strings.Fields(out.String()), " ")
	tooLarge := map[string]string{"--page-size": "100000", "--commit-parallel": "1000", "--cadence": "2h", "--lease": "2h", "--stop-timeout": "1h",
		"--run-lease": "1h", "--log-max-bytes": "2GiB", "--notify-backoff": "2h", "--notify-max-attempts": "101"}
	for flag, large := range tooLarge {
		zero, other := serve(flag, "0"), serve(flag, large)
		_, bound, ok := strings.Cut(zero, flag+" 0 is outside ")
		if !ok || bound == "" {
			t.Errorf("%s 0: %q; want it refused as outside the flag's range", flag, zero)
			continue
		}
		if !strings.HasPrefix(other, "ql: "+flag+" ") || !strings.HasSuffix(other, " is outside "+bound) {
			t.Errorf("%s %s: %q; want it refused in the words of %q", flag, large, other, zero)
		}
		if !strings.Contains(help, "("+bound+";") {
			t.Errorf("serve --help does not state %s's range %s", flag, bound)
		}
	}
	if got := serve("--concurrency", "0"); !strings.Contains(got, "--concurrency is a single-node setting") {
		t.Errorf("--concurrency 0: %q; want it refused as a single-node setting", got)
	}
	if got := serve("--clock-wait", "5m"); !strings.Contains(got, "--clock-wait is a single-node setting; a replica decides every time by PostgreSQL's clock") {
		t.Errorf("--clock-wait 5m: %q; want it refused saying a replica decides by the database's clock", got)
	}
}

// --metrics-per-trigger beyond its bound is refused before anything
// starts, naming the range `serve --help` states.
func TestMetricsPerTriggerOutsideItsRangeIsRefused(t *testing.T) {
	t.Parallel()
	opts := cli.Options{Binary: "ql", OpenPostgres: func(context.Context, string) (*cli.Backend, error) { return nil, nil },
		Profiles: map[string]cli.Profile{cli.ProfileCluster: Profile()}}
	var out, errOut bytes.Buffer
	cli.Main(context.Background(), opts, []string{"serve", "--profile", "cluster", "--database-url", validFlags().DatabaseURL, "--metrics-per-trigger", "5001"}, &out, &errOut)
	if line, _, _ := strings.Cut(errOut.String()+out.String(), "\n"); line != "ql: --metrics-per-trigger 5001 is outside 0–5000" {
		t.Errorf("--metrics-per-trigger 5001: %q; want it refused with its range", line)
	}
	out.Reset()
	cli.Main(context.Background(), opts, []string{"serve", "--help"}, &out, &out)
	if help := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(help, "(0–5000; default 0: off)") {
		t.Errorf("serve --help does not state --metrics-per-trigger's range and default:\n%s", help)
	}
}
