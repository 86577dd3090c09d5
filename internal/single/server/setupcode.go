package server

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/console"
)

// drawSetupCode draws the first owner's setup code when the database has
// no account, or returns nil and "" when it has one or cannot tell (the
// CLI's `users create` is the way then). Only this server's process takes
// the code, so its hash is kept in memory: a restart draws a new one.
func (s *Server) drawSetupCode() (*account.SetupCode, string) {
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	exist, err := s.store.UsersExist(ctx)
	if err != nil || exist {
		return nil, ""
	}
	return account.NewSetupCode()
}

// logSetupCode shows the setup code once. It is the one secret this
// server logs on purpose: whoever reads the server's log runs the server
// and could create an owner with the CLI anyway, and the log is the only
// channel to the operator that exists before any account does. The code
// is not kept anywhere else (the console holds its hash) and never logged
// again; it is spent by its first use and dies with the process.
func (s *Server) logSetupCode(code, consoleURL string) {
	if code == "" {
		return
	}
	s.cfg.Logger.Warn("no console account exists: create the first owner at "+consoleURL+"setup with the setup code "+code+
		" (it works once, until this server stops; or create one with `"+s.command("users create NAME --owner")+"`)",
		"code", console.CodeSetupCode)
}
