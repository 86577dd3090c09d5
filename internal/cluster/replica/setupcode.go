package replica

import (
	"context"
	"log/slog"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/core/httpserve"
)

// setupCode is this replica's one-time code for the first owner. It is
// drawn when the listener starts, before any database work, so the console
// can hold its hash from the start; the code itself is kept only until the
// first activation shows it (or drops it: an account exists), since only
// then can the replica tell whether the database has an account. Every
// replica draws its own: whichever is used first creates the owner
// (the database function takes a table lock), and the others' codes find
// an account and stop working.
type setupCode struct {
	holder *account.SetupCode
	code   string // "" once shown or dropped
}

func newSetupCode() *setupCode {
	holder, code := account.NewSetupCode()
	return &setupCode{holder: holder, code: code}
}

// offerSetupCode shows the setup code once, at the first activation, when
// the database has no account; otherwise, or when the database cannot
// tell, it closes the code (`ql users create` is the way then). Only the
// supervisor's goroutine calls it. The code is the one secret the replica
// logs on purpose, for the reason the single-node server does: the log is
// the only channel to the operator before any account exists, and whoever
// reads it runs the replica and could create an owner with the CLI anyway.
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
	at := httpserve.ConsoleURL(r.http.Addr(), r.s.HTTPAddr, r.s.HTTPTLS != nil) + "setup"
	r.log.Warn("no console account exists: create the first owner at "+at+" with the setup code "+code+
		" (it works once, until this replica stops; every replica logs its own and the first one used wins; or create one with `ql users create NAME --owner` and the admin role's database URL)",
		slog.String("code", console.CodeSetupCode))
}
