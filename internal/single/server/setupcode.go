package server

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/console"
)

// drawSetupCode draws the first owner's setup code when the database has
// no account and writes it to the setup code's file, or returns nil when
// it has one or cannot tell (the CLI's `users create` is the way then).
// The file of an earlier start goes first in every case: its code died
// with that process (a stop removes it; one killed before could not).
// Only this server's process takes the code, so its hash is kept in
// memory: a restart draws a new one. The string is what logSetupCode
// says.
func (s *Server) drawSetupCode() (*account.SetupCode, string) {
	s.removeSetupCode()
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	exist, err := s.store.UsersExist(ctx)
	if err != nil || exist {
		return nil, ""
	}
	holder, code := account.NewSetupCode()
	if err := account.WriteSetupCode(s.layout.SetupCode, code); err != nil {
		holder.Close()
		return nil, "no console account exists, and the setup code could not be written to " + s.layout.SetupCode + " (" + err.Error() +
			"): create the first owner with `" + s.command("users create NAME --owner") + "`"
	}
	holder.AtClose(s.removeSetupCode)
	s.setup = holder
	return holder, ""
}

// removeSetupCode removes the setup code's file: an account exists, or
// the server that drew the code stops or is gone.
func (s *Server) removeSetupCode() {
	if err := account.RemoveSetupCode(s.layout.SetupCode); err != nil {
		s.cfg.Logger.Warn("removing the setup code's file "+s.layout.SetupCode+" (remove it by hand; the code no longer works)",
			"code", console.CodeSetupCode, "err", err)
	}
}

// logSetupCode says where the setup code is, or why there is none though
// no account exists. The code itself is never logged: whoever reads the
// server's log (a log collector, a support bundle) is not thereby the
// server's operator, while the file is readable by the server's user
// alone, as the database is.
func (s *Server) logSetupCode(setup *account.SetupCode, failed, consoleURL string) {
	if failed != "" {
		s.cfg.Logger.Warn(failed, "code", console.CodeSetupCode)
		return
	}
	if setup == nil || !setup.Open() {
		return
	}
	s.cfg.Logger.Warn("no console account exists: create the first owner at "+consoleURL+"setup with the setup code in "+s.layout.SetupCode+
		" (it works once, until this server stops, and the file goes once an owner exists; or create one with `"+s.command("users create NAME --owner")+"`)",
		"code", console.CodeSetupCode, "file", s.layout.SetupCode)
}
