package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/crontab"
)

// crontabScriptsCommand prints the tasks a folder of scripts' header
// comments give, as the qinglong panel adds them after a subscription's
// pull: here they are published only when the file is applied.
func crontabScriptsCommand(opts Options) *cobra.Command {
	var project, zone, match, exclude string
	c := &cobra.Command{
		Use:   "scripts DIR --project NAME --tz ZONE",
		Short: "Print a definitions file of tasks read from scripts' header comments",
		Long: `Read each script (.js, .py, .sh, .ts) under DIR, its subfolders included (not hidden ones or
node_modules), and print a definitions file for ` + "`" + opts.Binary + ` apply` + "`" + `: one task and one trigger per
script whose header comment gives a cron, as the qinglong panel reads them after a subscription's
pull: a cron before the script's name on one line (cron "1 7-21/2 * * *" jd_x.js, tag=NAME;
Quantumult X's 0 0 * * * jd_x.js, tag=NAME; Loon's cron "0 0 * * *" script-path=...), else a line
"cron: EXPR", else cron "EXPR"; 6 fields are read with seconds first. The title is new Env('NAME')'s,
else the tag's. The task runs the script with node (.js), python3 -u (.py), bash (.sh) or tsx (.ts)
in its folder (workingDir, DIR made absolute: give DIR as the server sees it); the first .ts script
is noted on standard error, saying to install tsx where the tasks run (npm install -g tsx), as
` + "`" + opts.Binary + ` crontab convert` + "`" + ` notes the panel's task SCRIPT.ts. --match and --exclude are
the subscription's whitelist and blacklist, regular expressions over the path under DIR; a script
they leave out is left out without a word. Every other script read that gives no task (no cron, a
cron refused) is listed on standard error with why, and the command then exits 1 after printing
the file of the others. The file is sorted by path, so reading an unchanged folder again
prints the same file and applying it again publishes nothing new. Nothing follows the folder by
itself: after a pull, read it again and check the file with ` + "`" + opts.Binary + ` apply --dry-run -f FILE` + "`" + `.`,
		Example: "  " + opts.Binary + " crontab scripts /srv/scripts/owner_repo --project jd --tz Asia/Shanghai --match 'jd_|jx_' --exclude 'backup|test' > jd.yaml\n" +
			"  " + opts.Binary + " apply --dry-run -f jd.yaml",
		Args: oneArg("crontab scripts takes one folder: the scripts' folder"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkProjectAndZone(project, zone); err != nil {
				return err
			}
			o := crontab.ScriptOptions{Zone: zone}
			for _, f := range []struct {
				flag, value string
				re          **regexp.Regexp
			}{{"--match", match, &o.Match}, {"--exclude", exclude, &o.Exclude}} {
				if f.value == "" {
					continue
				}
				re, err := regexp.Compile(f.value)
				if err != nil {
					return Usagef("%s %q is no regular expression: %v", f.flag, f.value, err)
				}
				*f.re = re
			}
			root, err := filepath.Abs(args[0])
			if err != nil {
				return fmt.Errorf("the scripts folder %s: %w", args[0], err)
			}
			if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
				return Usagef("%s is no folder: give the folder holding the scripts (a subscription's, like /srv/scripts/owner_repo)", args[0])
			}
			res, skipped, err := crontab.Scripts(os.DirFS(root), root, o)
			if err != nil {
				return err
			}
			out, err := res.Definitions(project, opts.crontabServer())
			if err != nil {
				return err
			}
			if _, err := cmd.OutOrStdout().Write(out); err != nil {
				return err
			}
			for _, p := range res.Problems {
				fmt.Fprintf(textWriter{cmd.ErrOrStderr()}, "%s: note: %s\n", p.Text, p.Why)
			}
			for _, s := range skipped {
				fmt.Fprintf(textWriter{cmd.ErrOrStderr()}, "%s: not converted: %s\n", s.Path, s.Why)
			}
			if len(skipped) > 0 {
				return fmt.Errorf("%d %s gave no task (above); the file printed holds the %d that did",
					len(skipped), map[bool]string{true: "script", false: "scripts"}[len(skipped) == 1], len(res.Entries))
			}
			return nil
		},
	}
	c.Flags().StringVar(&project, "project", "", "the project the tasks and triggers go in (required)")
	c.Flags().StringVar(&zone, "tz", "", "IANA time zone of the triggers (required), e.g. Asia/Shanghai")
	c.Flags().StringVar(&match, "match", "", "a regular expression: only scripts whose path under DIR matches it (the subscription's whitelist; default: every script)")
	c.Flags().StringVar(&exclude, "exclude", "", "a regular expression: leave out scripts whose path under DIR matches it (the subscription's blacklist; default: none)")
	return c
}
