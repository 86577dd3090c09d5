package console

import "testing"

// A secret's name left empty is said to be required, as New task says
// its blank fields, not quoted back as a name that is not valid.
func TestASecretsEmptyNameIsSaidToBeRequired(t *testing.T) {
	t.Parallel()
	for l, want := range map[string]string{"zh": "名称：此项必填，请填写。", "en": "Name: this field is required; fill it in."} {
		if got := secretFormError(l, "", "a value long enough"); got != want {
			t.Errorf("%s: an empty name is refused with %q, want %q", l, got, want)
		}
	}
}
