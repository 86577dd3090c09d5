package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at link time: -ldflags "-X github.com/qinglong/qinglong/internal/core/cli.Version=v1.2.3".
var Version = "dev"

// commit is set at link time by build.sh from QL_COMMIT, the checkout's
// HEAD or a source tarball's COMMIT file: Go's own VCS stamp is left out
// of a build in a git worktree and under GOFLAGS=-buildvcs=false.
var commit string

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprint(cmd.OutOrStdout(), versionText())
			return nil
		},
	}
}

// withVersionFlag gives root a --version flag that prints what the version
// subcommand prints, so `ql --version`, `ql-edge --version` and
// `ql-worker --version` each answer as `ql version` does.
// A tree's help says where -v is a flag: at the root only, never a
// command's shorthand (apply's --verbose has none).
func withVersionFlag(root *cobra.Command, usage string) {
	root.Version = Version
	root.Flags().BoolP("version", "v", false, usage)
	// A template, but versionText holds no action: it is printed as is.
	root.SetVersionTemplate(versionText())
}

// versionText is the version, the commit and the Go version and platform,
// one a line.
func versionText() string {
	c := Commit()
	if c == commitUnknown {
		c += unknownCommitWhy
	}
	return fmt.Sprintf("version %s\ncommit  %s\ngo      %s %s/%s\n", Version, c, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// commitUnknown is Commit of a binary that carries no commit; the
// version text says why and how a build gets one.
const (
	commitUnknown    = "unknown"
	unknownCommitWhy = " (none was stamped: build.sh stamps the checkout's HEAD, and without a checkout QL_COMMIT or the COMMIT file a git archive fills)"
)

// Commit is the commit the binary was built from, marked -dirty when
// built from a modified tree: build.sh's stamp, else Go's own VCS stamp;
// "unknown" without either.
func Commit() string {
	if commit != "" {
		return commit
	}
	commit, modified := commitUnknown, false
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified {
		commit += "-dirty"
	}
	return commit
}
