package console

import (
	"net/http"
	"strings"
)

// textArea is the text of the form's textarea name with its line breaks
// as a file holds them: a browser sends a textarea's lines ended by CR LF
// whatever was typed or pasted, and a script stored so fails in /bin/sh
// ("done\r" is no keyword), a PEM key or a cookie reads wrong.
func textArea(r *http.Request, name string) string {
	return strings.ReplaceAll(r.PostFormValue(name), "\r\n", "\n")
}
