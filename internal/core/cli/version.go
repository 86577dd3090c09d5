package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at link time: -ldflags "-X github.com/qinglong/qinglong/internal/core/cli.Version=v1.2.3".
var Version = "dev"

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			commit, modified := "unknown", false
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
			fmt.Fprintf(cmd.OutOrStdout(), "version %s\ncommit  %s\ngo      %s %s/%s\n", Version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
