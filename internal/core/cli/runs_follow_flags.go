package cli

import (
	"github.com/spf13/cobra"
)

// followFlags are --follow and --exit-status of a command that makes a
// Run (`triggers run`, `runs rerun`).
type followFlags struct {
	follow, exitStatus bool
}

// addFollowFlags gives c --follow and --exit-status, and says in its help
// what they do, with an example: example is the command's line without
// them.
func addFollowFlags(c *cobra.Command, f *followFlags, opts Options, example string) {
	c.Flags().BoolVar(&f.follow, "follow", false, "after the Run is made, print its output until it ends, as "+opts.Binary+" runs logs -f does")
	c.Flags().BoolVar(&f.exitStatus, "exit-status", false, "with --follow: exit 0 if the Run succeeded, 6 if it ended otherwise (failed, timed_out, lost, cancelled)")
	c.Long += `
With --follow, once the Run is made (or found, for a --request-id given before), the command prints
what it prints without it, then the Run's output until the Run ends, exactly as ` + "`" + opts.Binary + ` runs logs -f` + "`" + `
does (how it ended is said on standard error); a refused request follows nothing and exits 3. Add
--exit-status to exit by the Run's end: 0 when it succeeded, 6 when it failed, timed out, was lost
or cancelled, so a script or a deploy step can run it and know whether it worked.`
	if c.Example != "" {
		c.Example += "\n"
	}
	c.Example += "  " + opts.Binary + " " + example + " --follow --exit-status"
}

// check refuses flags that cannot go together.
func (f followFlags) check(out string) error {
	if f.exitStatus && !f.follow {
		return Usagef("--exit-status exits by how the followed Run ended; add --follow")
	}
	if f.follow && out == "json" {
		return Usagef("--follow prints the Run's output after the report, which would not be JSON with -o json; leave out one of them")
	}
	return nil
}
