package deps

import (
	"net/url"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Mirror is where the installer of a kind fetches packages: Registry is
// npm's registry or pip's index (pip's trusted host is its host), Proxy
// the HTTP(S) proxy both reach it through. Empty is the installer's own
// default. Linux packages take none: apk and apt keep their mirrors in
// the host's own files.
type Mirror struct {
	Kind     Kind   `json:"kind"`
	Registry string `json:"registry"`
	Proxy    string `json:"proxy"`
	// TrustedHost is what pip is given as --trusted-host: the index's
	// host, derived, never set on its own.
	TrustedHost string `json:"trustedHost,omitempty"`
	AtMs        int64  `json:"atMs,omitempty"`
	Actor       string `json:"actor,omitempty"`
}

// MirrorKinds are the kinds that take a mirror, in the page's order.
var MirrorKinds = []Kind{Node, Python}

// MaxMirrorURL is the longest registry or proxy URL kept.
const MaxMirrorURL = 512

// The reasons of a refused mirror.
const (
	RefusalMirrorKind qlerror.Reason = "dependency_mirror_kind"
	RefusalMirrorURL  qlerror.Reason = "dependency_mirror_url"
)

// The fields of a mirror, the {field} of a dependency_mirror_url refusal.
const (
	FieldRegistry = "registry"
	FieldProxy    = "proxy"
)

// The why of a dependency_mirror_url refusal: a fixed set, which a
// translation says in its own words.
const (
	WhyMirrorScheme   = "is not an http:// or https:// URL"
	WhyMirrorSpace    = "holds a space or a control character"
	WhyMirrorOption   = "starts with '-', which the installer would read as an option"
	WhyMirrorUserInfo = "carries a user or password, which the installer's task and its Runs' logs would show"
	WhyMirrorLong     = "is longer than 512 characters"
	WhyMirrorNoHost   = "names no host"
)

// CheckMirror checks m's kind and URLs, both trimmed, and returns it with
// the trusted host pip is given.
func CheckMirror(m Mirror) (Mirror, error) {
	out := Mirror{Kind: m.Kind, Registry: strings.TrimSpace(m.Registry), Proxy: strings.TrimSpace(m.Proxy)}
	if !takesMirror(m.Kind) {
		if _, err := ParseKind(string(m.Kind)); err != nil {
			return Mirror{}, err
		}
		return Mirror{}, qlerror.New(qlerror.Invalid, "%s packages take no mirror here: apk and apt read theirs from the host's own files (/etc/apk/repositories, /etc/apt/sources.list); set node or python", m.Kind).
			Because(RefusalMirrorKind, "kind", string(m.Kind))
	}
	for _, f := range []struct{ field, value string }{{FieldRegistry, out.Registry}, {FieldProxy, out.Proxy}} {
		if err := checkMirrorURL(m.Kind, f.field, f.value); err != nil {
			return Mirror{}, err
		}
	}
	out.TrustedHost = trustedHost(out)
	return out, nil
}

func takesMirror(k Kind) bool {
	for _, x := range MirrorKinds {
		if x == k {
			return true
		}
	}
	return false
}

// checkMirrorURL refuses a registry or proxy URL an installer should not
// be given: anything but http or https, a word an installer reads as an
// option, or credentials, which the task's command shows to whoever reads
// the project. The refusal shows the value without them.
func checkMirrorURL(k Kind, field, v string) error {
	if v == "" {
		return nil
	}
	refuse := func(why string) error {
		shown := ShownURL(v)
		return qlerror.New(qlerror.Invalid, "the %s %s %q %s: write an http:// or https:// URL without user or password, such as %s, or leave it empty for the installer's default",
			k, field, shown, why, MirrorExample(k, field)).
			Because(RefusalMirrorURL, "kind", string(k), "field", field, "value", shown, "why", why, "example", MirrorExample(k, field))
	}
	switch {
	case len(v) > MaxMirrorURL:
		return refuse(WhyMirrorLong)
	case strings.HasPrefix(v, "-"):
		return refuse(WhyMirrorOption)
	case strings.ContainsFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return refuse(WhyMirrorSpace)
	}
	u, err := url.Parse(v)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "":
		return refuse(WhyMirrorScheme)
	case u.User != nil:
		return refuse(WhyMirrorUserInfo)
	case u.Hostname() == "":
		return refuse(WhyMirrorNoHost)
	}
	return nil
}

// MirrorExample is what a mirror's field of kind k looks like.
func MirrorExample(k Kind, field string) string {
	switch {
	case field == FieldProxy:
		return "http://127.0.0.1:7890"
	case k == Python:
		return "https://pypi.tuna.tsinghua.edu.cn/simple"
	}
	return "https://registry.npmmirror.com"
}

// ShownURL is v as pages, logs and refusals show it: without the user
// and password a URL may carry.
func ShownURL(v string) string {
	u, err := url.Parse(v)
	if err != nil || u.User == nil {
		if i := strings.LastIndex(v, "@"); err != nil && i >= 0 {
			return "…" + v[i:]
		}
		return v
	}
	u.User = nil
	return u.String()
}

// trustedHost is the host (and port) of a python mirror's index, which
// pip is told to trust as the 青龙 panel tells it (an index over plain
// http, or a mirror's certificate pip's bundle lacks); "" for npm.
func trustedHost(m Mirror) string {
	if m.Kind != Python || m.Registry == "" {
		return ""
	}
	u, err := url.Parse(m.Registry)
	if err != nil {
		return ""
	}
	return u.Host
}
