package repocheck

import (
	"slices"
	"testing"
)

// edgePackages is every package of this module the edge binary may link:
// the profile-neutral core, the shared HTTP server and the single-node
// profile. It is an allow-list, not a deny-list, so a new import that pulls
// a cluster package (PostgreSQL, row leases, recovery, the replica's API or
// its availability latch) into the edge fails here instead of growing the
// binary unnoticed. A new profile-neutral or single-node package the edge
// needs is added here by hand, which is the review the rule asks for.
var edgePackages = []string{
	"cmd/ql-edge",
	"examples",
	"internal/core/account",
	"internal/core/apitoken",
	"internal/core/apply",
	"internal/core/audit",
	"internal/core/authlimit",
	"internal/core/authlog",
	"internal/core/bytecount",
	"internal/core/catalog",
	"internal/core/cmdname",
	"internal/core/cli",
	"internal/core/console",
	"internal/core/cron",
	"internal/core/crontab",
	"internal/core/databackup",
	"internal/core/deps",
	"internal/core/digest",
	"internal/core/hold",
	"internal/core/httpapi",
	"internal/core/httpserve",
	"internal/core/ids",
	"internal/core/logtail",
	"internal/core/metrics",
	"internal/core/netaddr",
	"internal/single/singlecli",
	"internal/single/attemptlog",
	"internal/single/executor",
	"internal/single/lockprobe",
	"internal/single/server",
	"internal/core/loop",
	"internal/core/notify",
	"internal/core/retention",
	"internal/core/privatefile",
	"internal/core/process",
	"internal/core/plural",
	"internal/core/project",
	"internal/core/qlerror",
	"internal/core/qlimport",
	"internal/core/run",
	"internal/core/schedule",
	"internal/core/scripts",
	"internal/core/subscription",
	"internal/core/shellquote",
	"internal/single/sqlitestore",
	"internal/core/task",
	"internal/core/trigger",
	"internal/core/triggerref",
	"internal/core/validate",
	"internal/core/view",
	"internal/core/websession",
}

// edgeModules are the third-party modules the edge binary may link: the
// pure-Go SQLite driver and what it needs, the CLI and its tables' East
// Asian character widths (golang.org/x/text/width), YAML and cron parsing,
// the API's rate limiter, console passwords' Argon2id and terminal prompt,
// two-step sign-in's TOTP codes and the QR code of its key, and the Prometheus client with what it needs (its exposition model is
// protobuf; about 2.5 MB of a stripped edge binary).
// No PostgreSQL driver (github.com/jackc/...) belongs here.
var edgeModules = []string{
	"github.com/beorn7/perks",
	"github.com/boombuler/barcode",
	"github.com/cespare/xxhash/v2",
	"github.com/dustin/go-humanize",
	"github.com/google/uuid",
	"github.com/mattn/go-isatty",
	"github.com/munnerz/goautoneg",
	"github.com/pandatix/go-abnf",
	"github.com/pquerna/otp",
	"github.com/prometheus/client_golang",
	"github.com/prometheus/client_model",
	"github.com/prometheus/common",
	"github.com/prometheus/procfs",
	"github.com/remyoudompheng/bigfft",
	"github.com/robfig/cron/v3",
	"github.com/spf13/cobra",
	"github.com/spf13/pflag",
	"go.yaml.in/yaml/v3",
	"golang.org/x/crypto",
	"golang.org/x/sys",
	"golang.org/x/term",
	"golang.org/x/text",
	"golang.org/x/time",
	"google.golang.org/protobuf",
	"modernc.org/libc",
	"modernc.org/mathutil",
	"modernc.org/memory",
	"modernc.org/sqlite",
}

// The edge binary links exactly the allowed packages of this module and
// only the allowed third-party modules: its whole dependency closure is
// audited, so no PostgreSQL or cluster code can reach a device.
func TestEdgeBinaryLinksOnlyAllowedPackages(t *testing.T) {
	t.Parallel()
	linked := map[string]bool{}
	for _, p := range goList(t, "-deps", "./cmd/ql-edge") {
		switch rel, ours := local(p.ImportPath); {
		case p.Standard:
		case ours:
			linked[rel] = true
			if !slices.Contains(edgePackages, rel) {
				t.Errorf("the edge binary links %s, which is not on the edge allow-list: if it is profile-neutral or single-node, add it to edgePackages; if it is cluster code, remove the import that pulls it in", rel)
			}
		case p.Module == nil:
			t.Errorf("the edge binary links %s, which belongs to no module", p.ImportPath)
		case !slices.Contains(edgeModules, p.Module.Path):
			t.Errorf("the edge binary links %s from module %s, which is not on the edge allow-list (edgeModules); PostgreSQL drivers never are", p.ImportPath, p.Module.Path)
		}
	}
	if !linked["internal/single/server"] {
		t.Fatal("go list did not report internal/single/server in the edge binary; the audit would prove nothing")
	}
	for _, rel := range edgePackages {
		if !linked[rel] {
			t.Errorf("edgePackages lists %s but the edge binary no longer links it; remove it from the list", rel)
		}
	}
}
