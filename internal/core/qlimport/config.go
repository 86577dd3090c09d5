package qlimport

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// ConfigFile is where a data folder keeps the panel's settings: a shell
// file the panel sources before every task, so that what it exports
// reaches every task's environment.
const ConfigFile = "config/config.sh"

// maxConfig bounds how much of the panel's config.sh is read: the
// panel's own is a few kilobytes.
const maxConfig = 1 << 20

// Config is what the panel's config.sh sets, by name only: its values
// are never read out of the line they are on.
type Config struct {
	// Notify are the exported notification keys its scripts' sendNotify
	// reads, Exported the other variables it exports to every task, and
	// Settings the panel's own settings it sets, each with a value.
	Notify, Exported, Settings []string
	// Present says the file is there; Unreadable why it could not be
	// read, when it could not.
	Present    bool
	Unreadable string
}

// notifyKey is a name of a notification key the panel's sendNotify
// (notify.js, notify.py) reads: its push services' tokens and targets.
var notifyKey = regexp.MustCompile(`^(PUSH_KEY|SCKEY|BARK_\w+|TG_\w+|DD_BOT_\w+|FSKEY|FSSECRET|QYWX_\w+|IGOT_PUSH_KEY|PUSH_PLUS_\w+|WE_PLUS_\w+|GOBOT_\w+|GOTIFY_\w+|SMTP_\w+|PUSHME_\w+|CHRONOCAT_\w+|WEBHOOK_\w+|NTFY_\w+|WXPUSHER_\w+|DEER_\w+|QMSG_\w+|AIBOTK_\w+|CHAT_\w+|HITOKOTO|SKIP_PUSH_TITLE)$`)

// settingAdvice is which advice (adviceWords) says what to do here
// instead of each of the panel's own settings that has a counterpart; the
// others are the panel's alone.
var settingAdvice = map[string]Code{
	"CommandTimeoutTime":        CodeSettingTimeout,
	"MaxConcurrentNum":          CodeSettingConcurrency,
	"RandomDelay":               CodeSettingJitter,
	"RandomDelayFileExtensions": CodeSettingJitter,
	"RandomDelayIgnoredMinutes": CodeSettingJitter,
	"PipMirror":                 CodeSettingMirror,
	"NpmMirror":                 CodeSettingMirror,
	"ProxyUrl":                  CodeSettingProxy,
	"GithubProxyUrl":            CodeSettingGithubProxy,
}

// adviceWords are the advices of settingAdvice in English.
var adviceWords = map[Code]string{
	CodeSettingTimeout:     "set the tasks' timeout (1h when not set)",
	CodeSettingConcurrency: "start the server with --concurrency",
	CodeSettingJitter:      "give the triggers a jitter",
	CodeSettingMirror:      "set the mirror on the Dependencies page",
	CodeSettingProxy:       "set the proxy on the Dependencies page, or HTTPS_PROXY in the env of the tasks that need it",
	CodeSettingGithubProxy: "write the proxied URL in the subscription",
}

// panelSettings are the settings the panel's config.sh sets for the
// panel itself, not for its tasks.
var panelSettings = map[string]bool{
	"AutoDelCron": true, "AutoAddCron": true, "DefaultCronRule": true, "RepoFileExtensions": true, "CpuWarn": true, "MemoryWarn": true,
	"DiskWarn": true, "EnableExtraShell": true, "EnableExtraShellUpdate": true, "AutoStartBot": true, "TempBlockCookie": true,
}

// assignment is a line of the shell setting a variable: its name, and
// whether it is exported; the rest of the line is its value.
var assignment = regexp.MustCompile(`^\s*(export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)

// readConfig reads the names the panel's config.sh in data sets, opened
// read-only; a folder without one has none. One that cannot be read is
// said so, not refused: the import does not need it.
func readConfig(data string) Config {
	c, err := configNames(filepath.Join(data, filepath.FromSlash(ConfigFile)))
	if err != nil {
		return Config{Present: true, Unreadable: err.Error()}
	}
	return c
}

func configNames(file string) (Config, error) {
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, err
	}
	defer f.Close() //nolint:errcheck // read only
	c := Config{Present: true}
	seen := map[string]bool{}
	sc := bufio.NewScanner(io.LimitReader(f, maxConfig))
	sc.Buffer(make([]byte, 0, 64<<10), maxConfig)
	for sc.Scan() {
		m := assignment.FindStringSubmatch(sc.Text())
		if m == nil || seen[m[2]] || blank(m[3]) {
			continue
		}
		name, exported := m[2], m[1] != ""
		switch {
		case exported && notifyKey.MatchString(name):
			c.Notify = append(c.Notify, name)
		case exported:
			c.Exported = append(c.Exported, name)
		case panelSettings[name] || settingAdvice[name] != "":
			c.Settings = append(c.Settings, name)
		default:
			// Not exported, it reaches none of the panel's scripts.
			continue
		}
		seen[name] = true
	}
	if err := sc.Err(); err != nil {
		return Config{}, err
	}
	for _, names := range [][]string{c.Notify, c.Exported, c.Settings} {
		sort.Strings(names)
	}
	return c, nil
}

// blank reports whether a shell value sets nothing: empty, or an empty
// quoted string, a comment after it or not.
func blank(value string) bool {
	v := strings.TrimSpace(value)
	for _, empty := range []string{`""`, `''`} {
		v = strings.TrimSpace(strings.TrimPrefix(v, empty))
	}
	return v == "" || strings.HasPrefix(v, "#")
}
