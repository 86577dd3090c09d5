package notify

import (
	"errors"
	"strings"
	"testing"
)

// A notification refused a secret keeps the whole refusal, the command
// that sets the secret included, however long the file's path: cut at
// the 300 bytes a receiver's answer gets, the command could not be
// pasted. A receiver's answer is still cut there.
func TestASecretsRefusalIsKeptWholeWhereAReceiversAnswerIsCut(t *testing.T) {
	t.Parallel()
	path := "/srv/" + strings.Repeat("deep/", 60) + "secrets.json"
	refusal := `secret "ops_hmac" is not defined in ` + path + "; set it with `ql secrets set ops_hmac --secrets-file " + path + "` on every replica"
	if got := reasonOf(secretsRefused{errors.New(refusal)}); got != refusal {
		t.Errorf("a refusal of %d bytes kept as %q; want it whole", len(refusal), got)
	}
	if got := reasonOf(errors.New(refusal)); len(got) > maxErrorLen+len("…") {
		t.Errorf("a receiver's reason of %d bytes kept as %d bytes; want it cut at %d", len(refusal), len(got), maxErrorLen)
	}
}
