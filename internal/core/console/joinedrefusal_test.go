package console

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/notify"
)

// An email channel refused for several mistakes at once is explained in
// Chinese mistake by mistake, not by its first alone.
func TestAnEmailChannelsMistakesAreAllSaidInChinese(t *testing.T) {
	t.Parallel()
	err := notify.Channel{Name: "m", Kind: notify.Email, Host: "smtp.example.com", From: "QingLong"}.Validate()
	got := errorText("zh", err)
	for _, want := range []string{"from：“QingLong”不是有效的邮件地址", "to："} {
		if !strings.Contains(got, want) {
			t.Errorf("the Chinese refusal %q does not say %q", got, want)
		}
	}
}
