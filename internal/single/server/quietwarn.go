package server

import "github.com/qinglong/qinglong/internal/core/loop"

// quietWarn is a loop's error sink logging at warn under code: a round
// failing the same way each poll (a full disk) is said once a minute, with
// held_back counting the times it was met in between (loop.Quiet).
func (s *Server) quietWarn(msg, code string) func(error) {
	return loop.NewQuiet(func(err error, heldBack int) {
		attrs := []any{"code", code, "error", err}
		if heldBack > 0 {
			attrs = append(attrs, "held_back", heldBack)
		}
		s.cfg.Logger.Warn(msg, attrs...)
	}).Error
}
