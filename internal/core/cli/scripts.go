package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/plural"
	"github.com/qinglong/qinglong/internal/core/scripts"
)

// scriptsFlags say which scripts folder a scripts command works in: the
// data directory's, or the one --scripts-dir names (as the server was
// given it).
type scriptsFlags struct {
	db  dbFlags
	dir string
}

func addScriptsFlags(c *cobra.Command, f *scriptsFlags, opts Options, write bool) {
	if write {
		addDBWriteFlags(c, &f.db, opts.OpenPostgres != nil)
	} else {
		addDBFlags(c, &f.db, opts.OpenPostgres != nil)
	}
	c.Flags().StringVar(&f.dir, "scripts-dir", "", "the scripts folder, when the server was given one (default: scripts in the data directory; $QL_SCRIPTS_DIR, which every command a server starts has)")
	BindEnv(c.Flags(), "scripts-dir")
}

// folder is the scripts folder the flags name.
func (f *scriptsFlags) folder(opts Options) (*scripts.Folder, error) {
	dsn, err := f.db.resolve(opts)
	if err != nil {
		return nil, err
	}
	if IsPostgresURL(dsn) {
		return nil, Usagef("a database on PostgreSQL keeps no scripts folder: commands run on the workers' hosts, which hold the scripts; put them there")
	}
	if f.dir != "" {
		return &scripts.Folder{Dir: f.dir}, nil
	}
	return &scripts.Folder{Dir: filepath.Join(filepath.Dir(dsn), scripts.DirName)}, nil
}

// change makes a change of the folder with the database open for
// writing, refused while the clock reads behind it, then records it.
func (f *scriptsFlags) change(ctx context.Context, opts Options, do func(*scripts.Folder) (audit.Entry, string, error)) error {
	folder, err := f.folder(opts)
	if err != nil {
		return err
	}
	b, err := openExistingForWrite(ctx, opts, &f.db)
	if err != nil {
		return err
	}
	defer b.Close()
	e, done, err := do(folder)
	if err != nil || b.Record == nil {
		return err
	}
	return audit.RecordDone(ctx, b.Record, e, done+" in "+folder.Dir)
}

func scriptsCommand(opts Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "scripts",
		Short: "List, show, write and remove the files of the scripts folder tasks run scripts from",
		Long: `The scripts folder is scripts in the data directory, or the folder the server was given with
--scripts-dir (give it here too); every command the server starts finds it in $QL_SCRIPTS_DIR. Paths
are relative to it: an absolute path, one naming .., and a symbolic link leading outside the folder
are refused, and nothing outside it is read or written. put and rm are recorded in the data
directory's audit trail (audit list) by path, size and sha256, never content, and are refused while
this device's clock reads behind the newest time the database recorded.`,
	}
	c.AddCommand(scriptsListCommand(opts), scriptsShowCommand(opts), scriptsPutCommand(opts), scriptsRmCommand(opts))
	return c
}

func scriptsListCommand(opts Options) *cobra.Command {
	var f scriptsFlags
	c := &cobra.Command{
		Use:     "list [DIR]",
		Short:   "List a folder of the scripts folder: folders first, then files with size and modification time",
		Example: "  " + opts.Binary + " scripts list --data-dir /var/lib/qinglong\n  " + opts.Binary + " scripts list sub --data-dir /var/lib/qinglong",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			folder, err := f.folder(opts)
			if err != nil {
				return err
			}
			dir := ""
			if len(args) == 1 {
				dir = args[0]
			}
			entries, err := folder.List(dir)
			if err != nil {
				return err
			}
			if len(entries) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "no files in %s\n", filepath.Join(folder.Dir, filepath.FromSlash(dir)))
				return nil
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tSIZE\tMODIFIED")
			for _, e := range entries {
				name, size := e.Path, fmt.Sprint(e.Size)
				switch {
				case e.Outside:
					name, size = e.Path+" -> "+e.Target+" (link leading outside the folder, not followed)", ""
				case e.Dir:
					name, size = e.Path+"/", ""
				}
				if e.Link && !e.Outside {
					name += " -> " + e.Target
				}
				modified := ""
				if e.ModMs != 0 {
					modified = time.UnixMilli(e.ModMs).UTC().Format(time.RFC3339)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\n", userText(name), size, modified)
			}
			return w.Flush()
		},
	}
	addScriptsFlags(c, &f, opts, false)
	return c
}

func scriptsShowCommand(opts Options) *cobra.Command {
	var f scriptsFlags
	c := &cobra.Command{
		Use:     "show PATH",
		Short:   "Print a file of the scripts folder, as it is",
		Example: "  " + opts.Binary + " scripts show jd_bean_sign.js --data-dir /var/lib/qinglong",
		Args:    oneArg("scripts show takes one path in the scripts folder, such as jd_bean_sign.js or sub/notify.py"),
		RunE: func(cmd *cobra.Command, args []string) error {
			folder, err := f.folder(opts)
			if err != nil {
				return err
			}
			rc, _, err := folder.Open(args[0])
			if err != nil {
				return err
			}
			defer rc.Close() //nolint:errcheck // read only
			_, err = io.Copy(cmd.OutOrStdout(), rc)
			return err
		},
	}
	addScriptsFlags(c, &f, opts, false)
	return c
}

func scriptsPutCommand(opts Options) *cobra.Command {
	var f scriptsFlags
	c := &cobra.Command{
		Use:   "put PATH [FILE|-]",
		Short: "Write a file of the scripts folder from FILE, or from standard input",
		Long: `Write PATH in the scripts folder from FILE (or standard input, without FILE or with -), at most
16 MiB, replacing a file there whole (its mode kept; a command starting meanwhile reads the old file
or the new one). Its folder must exist. A symbolic link is written through: the file it leads to is
replaced and the link left as it is; a link leading outside the folder or to nothing is refused.
It waits for another process's change of the folder (a server's save) to end, and a save never
slips between another's check and write.`,
		Example: "  " + opts.Binary + " scripts put jd_bean_sign.js ./jd_bean_sign.js --data-dir /var/lib/qinglong\n  curl -fsS https://example.com/notify.py | " + opts.Binary + " scripts put sub/notify.py --data-dir /var/lib/qinglong",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return Usagef("scripts put takes one path in the scripts folder, then the file to write it from (none or -: standard input)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			in := cmd.InOrStdin()
			if len(args) == 2 && args[1] != "-" {
				file, err := os.Open(args[1])
				if err != nil {
					return Usagef("%s cannot be read: %v", args[1], err)
				}
				defer file.Close() //nolint:errcheck // read only
				in = file
			}
			var saved scripts.Saved
			err := f.change(cmd.Context(), opts, func(folder *scripts.Folder) (audit.Entry, string, error) {
				var err error
				if saved, err = folder.Put(args[0], in, true, scripts.MaxUpload); err != nil {
					return audit.Entry{}, "", err
				}
				action := audit.ScriptSaved
				if saved.Created {
					action = audit.ScriptCreated
				}
				note := ""
				if saved.Through != "" {
					note = "through the link, to " + saved.Through
				}
				return audit.Script(action, actor(), saved.Path, saved.Size, saved.Digest, note), "script " + saved.Path + " was written", nil
			})
			if err != nil {
				return err
			}
			through := ""
			if saved.Through != "" {
				through = ", through the link: to " + saved.Through
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d bytes, sha256 %s%s)\n", userText(saved.Path), saved.Size, saved.Digest, userText(through))
			return nil
		},
	}
	addScriptsFlags(c, &f, opts, true)
	return c
}

func scriptsRmCommand(opts Options) *cobra.Command {
	var f scriptsFlags
	var recursive bool
	c := &cobra.Command{
		Use:     "rm PATH",
		Short:   "Remove a file or an empty folder of the scripts folder (a folder with files: --recursive)",
		Example: "  " + opts.Binary + " scripts rm old/jd_old.js --data-dir /var/lib/qinglong\n  " + opts.Binary + " scripts rm old --recursive --data-dir /var/lib/qinglong",
		Args:    oneArg("scripts rm takes one path in the scripts folder, a file or a folder"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var gone scripts.Removed
			var p string
			err := f.change(cmd.Context(), opts, func(folder *scripts.Folder) (audit.Entry, string, error) {
				var err error
				if p, err = scripts.Clean(args[0]); err != nil {
					return audit.Entry{}, "", err
				}
				if gone, err = folder.Remove(p, recursive); err != nil {
					return audit.Entry{}, "", err
				}
				if gone.Dir {
					return audit.ScriptFolder(audit.ScriptDeleted, actor(), p, "folder of "+plural.Count(gone.Entries, "entry", "entries")), "folder " + p + " was deleted", nil
				}
				return audit.Script(audit.ScriptDeleted, actor(), p, gone.Size, gone.Digest, ""), "script " + p + " was deleted", nil
			})
			if err != nil {
				return err
			}
			what := "removed " + p
			if gone.Dir {
				what += " (a folder of " + plural.Count(gone.Entries, "entry", "entries") + ")"
			}
			fmt.Fprintln(cmd.OutOrStdout(), userText(what))
			return nil
		},
	}
	c.Flags().BoolVar(&recursive, "recursive", false, "remove a folder with all it holds")
	addScriptsFlags(c, &f, opts, true)
	return c
}
