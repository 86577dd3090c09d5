package console

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
)

// A user refused an action is told of roles, as the account page names
// the user's (查看者, 操作员); a token's session is told of scopes.
func TestAUserRefusedAnActionIsToldOfRoles(t *testing.T) {
	t.Parallel()
	user := &session{userID: "u1", name: "alice", scope: apitoken.Read}
	if got, want := notAllowed("zh", user, apitoken.Operate), "你的角色是“查看者”，不允许此操作；需要“操作员”角色。"; got != want {
		t.Errorf("a viewer refused in Chinese: %q, want %q", got, want)
	}
	if got, want := notAllowed("en", user, apitoken.Admin), "Your role, viewer, does not allow this; it needs the owner role."; got != want {
		t.Errorf("a viewer refused in English: %q, want %q", got, want)
	}
	token := &session{name: "ci", scope: apitoken.Read}
	if got, want := notAllowed("zh", token, apitoken.Operate), "你的会话权限为“只读”，不允许此操作；需要“操作”权限。"; got != want {
		t.Errorf("a token's session refused: %q, want %q", got, want)
	}
}
