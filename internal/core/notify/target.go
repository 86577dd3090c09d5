package notify

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Target is where c sends, in the words of a page that shows its
// settings: the URL as written (which carries no credentials: CheckURL),
// each secret by its name as a delivery's error masks its value
// ("<secret NAME>"), never a value; for an email channel its server, TLS
// mode, sender and recipients.
func (c Channel) Target() string {
	var parts []string
	add := func(label, v string) {
		if v != "" {
			parts = append(parts, label+v)
		}
	}
	if c.Kind == Email {
		add("", "smtp "+net.JoinHostPort(c.Host, strconv.Itoa(c.MailPort()))+" ("+c.MailTLS()+")")
		add("from ", c.From)
		add("to ", strings.Join(c.To, ", "))
		add("user ", c.Username)
		add("password ", maskOfSecret(c.PasswordSecret))
		return strings.Join(parts, ", ")
	}
	add("", c.URL)
	add("", maskOfSecret(c.URLSecret))
	add("token ", maskOfSecret(c.TokenSecret))
	add("chat ", c.ChatID)
	add("signed with ", maskOfSecret(c.SigningSecret))
	return strings.Join(parts, ", ")
}

// maskOfSecret is how a secret's value is shown wherever it could be: by
// its name ("" for none).
func maskOfSecret(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf("<secret %s>", name)
}
