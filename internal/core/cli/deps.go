package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/core/deps"
)

func depsCommand(opts Options) *cobra.Command {
	c := &cobra.Command{
		Use:   "deps",
		Short: "List, add, install again and remove the Node.js, Python and Linux packages the scripts need",
		Long: `The packages the tasks' scripts need on the server that runs them, as its console's Dependencies
page lists them: npm installs into the scripts folder's node_modules, pip3 with --user, apk or
apt-get as root. Each add, install or removal is a Run of a task of the project dependencies,
whose log 'runs logs RUN' shows; 'deps mirror' sets the registry and proxy npm and pip fetch
through. Changes ask the server over its API (--api-url and an admin token in $QL_TOKEN), which
installs with its own installers into its own scripts folder; list and mirror without a type
read the data directory too.` + opts.clusterOnly("\nOn the cluster the workers run the commands: install the packages on each worker's host."),
	}
	c.AddCommand(depsListCommand(opts), depsAddCommand(opts), depsRmCommand(opts), depsInstallCommand(opts), depsMirrorCommand(opts))
	return c
}

func depsListCommand(opts Options) *cobra.Command {
	var db dbFlags
	var out string
	c := &cobra.Command{
		Use:   "list",
		Short: "List the declared packages, each with the state of the Run that installed it",
		Long: `List the declared packages by type (node, python, linux) and name: the specifier as given, the
state of the newest Run that installed it (installed, failed, installing, declared when never
installed, gone when retention deleted its Run), that Run and when it was asked for. -o json prints
what GET /api/v1/dependencies answers.
` + apiHelp("deps list"),
		Example: "  " + opts.Binary + " deps list --data-dir /var/lib/qinglong\n  " + opts.Binary + " deps list --api-url https://ql.example.com:8080 -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(out); err != nil {
				return err
			}
			b, err := openExisting(cmd.Context(), opts, &db)
			if err != nil {
				return err
			}
			defer b.Close()
			if b.Dependencies == nil {
				return Usagef("this database keeps no dependencies: the commands run on the workers' hosts, which install their own")
			}
			list, err := b.Dependencies.DependencyListed(cmd.Context())
			if err != nil {
				return err
			}
			if list == nil {
				list = []deps.Listed{}
			}
			return printListing(cmd, out, listing[deps.Listed]{
				json: struct {
					Dependencies []deps.Listed `json:"dependencies"`
				}{list},
				header: []string{"TYPE", "NAME", "SPEC", "STATE", "RUN", "ASKED"},
				items:  list,
				row: func(d deps.Listed) []string {
					asked := "-"
					if d.RunID != "" {
						asked = fmtMs(&d.AtMs) + " " + d.Actor
					}
					return []string{string(d.Kind), d.Name, d.Spec, d.State, orDash(d.RunID), asked}
				},
				none: NoneLine("dependency", false, "`"+opts.Binary+" deps add node axios --api-url URL` declares and installs one"),
			})
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	addOutputFlag(c, &out)
	return c
}

func depsAddCommand(opts Options) *cobra.Command {
	var db dbFlags
	c := &cobra.Command{
		Use:   "add TYPE PACKAGE...",
		Short: "Declare packages and install them in one Run on the server",
		Long: `Declare packages of one type (node, python or linux) and install them together in one Run on
the server: npm names, scoped or not, with an optional @version (axios, @scope/x@1.2); pip
requirement specifiers (requests==2.31.0, httpx[socks], x>=1,<2); apk or apt names with an
optional =version. Every name is checked before any is declared. It prints the Run's id.
` + apiHelp("deps add"),
		Example: "  " + opts.Binary + " deps add node axios dayjs@1.11.10 --api-url https://ql.example.com:8080\n  " +
			opts.Binary + " deps add python requests==2.31.0 --api-url https://ql.example.com:8080",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 2 {
				return Usagef("deps add takes one type (node, python or linux) and one or more packages of it")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return depsChange(cmd, opts, &db, args[0], func(ctx context.Context, m deps.Manager, k deps.Kind) (string, error) {
				return m.DependencyAdd(ctx, "", k, strings.Join(args[1:], " "))
			})
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	return c
}

func depsRmCommand(opts Options) *cobra.Command {
	var db dbFlags
	c := &cobra.Command{
		Use:   "rm TYPE NAME",
		Short: "Uninstall a declared package in a Run on the server and forget it",
		Long: `Uninstall a declared package by its name, without its version (npm uninstall, pip3 uninstall -y,
apk del, apt-get remove -y), in a Run on the server, and forget it. It prints the Run's id.
` + apiHelp("deps rm"),
		Example: "  " + opts.Binary + " deps rm node axios --api-url https://ql.example.com:8080",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return Usagef("deps rm takes one type (node, python or linux) and one package name (%d arguments given)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return depsChange(cmd, opts, &db, args[0], func(ctx context.Context, m deps.Manager, k deps.Kind) (string, error) {
				return m.DependencyRemove(ctx, "", k, args[1])
			})
		},
	}
	addDBFlags(c, &db, opts.OpenPostgres != nil)
	addServerFlag(c, &db)
	return c
}

// depsChange asks the server (only: its installers, its PATH and its
// scripts folder install) for the Run of a change of kind and prints
// the Run's id.
func depsChange(cmd *cobra.Command, opts Options, db *dbFlags, kind string, do func(context.Context, deps.Manager, deps.Kind) (string, error)) error {
	k, err := deps.ParseKind(kind)
	if err != nil {
		return Usagef("%s", err.Error())
	}
	if db.server == "" {
		return Usagef("%s installs with the server's installers, on its PATH and into its scripts folder: give --api-url URL with an admin token in $QL_TOKEN", remotePath(cmd))
	}
	b, err := openExisting(cmd.Context(), opts, db)
	if err != nil {
		return err
	}
	defer b.Close()
	id, err := do(cmd.Context(), b.Dependencies, k)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\nfollow it with: %s runs logs %s -f --api-url URL\n", id, opts.Binary, id)
	return err
}
