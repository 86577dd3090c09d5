package replica

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/core/httpserve"
)

// setupCode is this replica's one-time code for the first owner. It is
// drawn when the listener starts, before any database work, so the console
// can hold its hash from the start; the code itself is kept only until the
// first activation writes it to its file under --setup-code-dir (or drops
// it: an account exists, or no directory was given), since only then can
// the replica tell whether the database has an account. Every replica
// draws its own: whichever is used first creates the owner (the database
// function takes a table lock), and the others' codes find an account and
// stop working.
type setupCode struct {
	holder *account.SetupCode
	code   string // "" once written or dropped
	// path is the code's file, "" without --setup-code-dir.
	path string
}

// newSetupCode draws the code; a file an earlier replica left in dir (one
// killed before its stop removed it) goes at once: its code died with it.
func newSetupCode(dir string, log *slog.Logger) *setupCode {
	holder, code := account.NewSetupCode()
	s := &setupCode{holder: holder, code: code}
	if dir != "" {
		s.path = filepath.Join(dir, account.SetupCodeFile)
		s.remove(log)
	}
	return s
}

// remove removes the code's file.
func (s *setupCode) remove(log *slog.Logger) {
	if err := account.RemoveSetupCode(s.path); err != nil {
		log.Warn("removing the setup code's file "+s.path+" (remove it by hand; the code no longer works)",
			slog.String("code", console.CodeSetupCode), slog.String("err", err.Error()))
	}
}

// offerSetupCode offers the setup page at the first activation when the
// database has no account: it writes the code to its file, readable by
// the replica's user alone, and logs where the file is, never the code. A
// log is read by more people than run the replica (a log collector, a
// support bundle), and a replica has no data directory of its own, so
// without --setup-code-dir it offers no setup page and its line names the
// command that creates the first owner with the admin role, which whoever
// runs the cluster holds. Otherwise, or when the database cannot tell, it
// closes the code. Only the supervisor's goroutine calls it.
func (r *replica) offerSetupCode(ctx context.Context, rt *pgstore.Runtime) {
	code := r.setup.code
	if code == "" {
		return
	}
	r.setup.code = ""
	exist, err := rt.UsersExist(ctx)
	if err != nil || exist {
		r.setup.holder.Close()
		return
	}
	const create = "`ql users create NAME --owner` with the admin role's database URL in $QL_DATABASE_ADMIN_URL"
	if r.setup.path == "" {
		r.setup.holder.Close()
		r.log.Warn("no console account exists: create the first owner with "+create+
			" (or start a replica with --setup-code-dir DIR to create it on the console's setup page with the one-time code written there)",
			slog.String("code", console.CodeSetupCode))
		return
	}
	if err := account.WriteSetupCode(r.setup.path, code); err != nil {
		r.setup.holder.Close()
		r.log.Warn("no console account exists, and the setup code could not be written to "+r.setup.path+" ("+err.Error()+"): create the first owner with "+create,
			slog.String("code", console.CodeSetupCode))
		return
	}
	r.setup.holder.AtClose(func() { r.setup.remove(r.log) })
	at := httpserve.ConsoleURL(r.http.Addr(), r.s.HTTPAddr, r.s.HTTPTLS != nil) + "setup"
	r.log.Warn("no console account exists: create the first owner at "+at+" with the setup code in "+r.setup.path+
		" (it works once, until this replica stops, and the file goes once an owner exists; every replica given the flag writes its own and the first one used wins; or create one with "+create+")",
		slog.String("code", console.CodeSetupCode), slog.String("file", r.setup.path))
}
