package notify

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// A receiver's answer is quoted with the channel's secrets masked before
// it is cut to maxSnippet bytes: a secret the cut would cross shows none
// of itself, the cut never splits a character nor a secret's marker, and
// so for a refusal (a 4xx) and for a 2xx answer without the service's
// acknowledgement; the reason kept on the row is cut the same way.
func TestAnAnswerIsMaskedBeforeItIsCutSoNoPartOfASecretShows(t *testing.T) {
	const secret = "Kq7vZ-signing-key-of-the-hook-0123456789"
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/refuse" {
			w.WriteHeader(http.StatusBadRequest)
		}
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	d := NewDeliverer(DeliveryConfig{Client: &http.Client{Timeout: 5 * time.Second},
		Secrets: func([]string) (map[string]string, error) { return map[string]string{"hook_key": secret}, nil }})
	channels := map[string]Channel{
		"a refusal":                  {Name: "hook", Kind: Webhook, URL: srv.URL + "/refuse", SigningSecret: "hook_key"},
		"an answer without its code": {Name: "robot", Kind: DingTalk, URL: srv.URL + "/robot", SigningSecret: "hook_key"},
	}
	for what, c := range channels {
		for at := maxSnippet - len(secret) - 3; at <= maxSnippet+1; at++ {
			// Three-byte characters before the secret move it across
			// the cut at every byte, and split it at every place too.
			body = strings.Repeat("x", at%3) + strings.Repeat("服", at/3) + secret + strings.Repeat("务", 200)
			_, err := d.send(t.Context(), sample(c))
			if err == nil {
				t.Fatalf("%s with the secret at byte %d: delivered, want a failure quoting the answer", what, at)
			}
			text := err.Error()
			if strings.Contains(text, secret[:minRedacted]) || !utf8.ValidString(text) {
				t.Fatalf("%s with the secret at byte %d: %q shows part of the secret or is not UTF-8", what, at, text)
			}
			for _, cut := range []string{text, truncate(text)} {
				for i := strings.Index(cut, "<"); i >= 0; i = strings.Index(cut, "<") {
					if cut = cut[i+1:]; !strings.HasPrefix(cut, "secret hook_key>") {
						t.Fatalf("%s with the secret at byte %d: %q leaves part of a secret's marker", what, at, text)
					}
				}
			}
			if at+len(secret) <= maxSnippet && !strings.Contains(text, "<secret hook_key>") {
				t.Fatalf("%s with the secret at byte %d: %q does not say the secret was there", what, at, text)
			}
		}
	}
}
