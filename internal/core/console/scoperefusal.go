package console

import (
	"fmt"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// notAllowed says in l that s may not do what needs scope: a user's
// session in the words of roles, as the account page names the user's
// role (viewer, operator, owner); a token's in those of scopes.
func notAllowed(l string, s *session, need apitoken.Scope) string {
	if has, needs := roleKey(s.scope), roleKey(need); s.userID != "" && has != "" && needs != "" {
		return fmt.Sprintf(tr(l, "err.role"), tr(l, has), tr(l, needs))
	}
	return fmt.Sprintf(tr(l, "err.scope"), word(l, "scope", s.scope), word(l, "scope", need))
}
