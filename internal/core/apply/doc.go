// Package apply reads a declarative definitions file (YAML: one project with
// its tasks and triggers) and converges a store to it through
// catalog.Service. It is profile-neutral: the same file applies to SQLite
// and PostgreSQL.
//
// Everything is parsed and validated before anything is written, so invalid
// input (with file:line and field in the message) writes nothing; every
// independent error of a file is reported at once (FileErrors). A valid
// file is then applied in one transaction: every object it changes is
// published with one publish time, or — when anything fails — none is.
// Objects already matching the file are reported unchanged; objects missing
// from the file are left as they are, so a project may span several files.
//
// A file holds at most MaxFileSize bytes, MaxTasks tasks and MaxTriggers
// triggers. YAML anchors, aliases, merge keys and non-string keys are
// refused: other YAML tools would read such a file differently.
//
// Format:
//
//	project: demo                # required; status: active|archived (left out: as it is; a new project is active)
//	title: 演示项目               # optional display title (project, task and trigger alike): one line, ≤ 80 characters
//	tasks:
//	  - name: hello
//	    title: 问候                # shown beside the name; saving it publishes no revision
//	    shell: /bin/sh           # shell mode: shell + script
//	    script: echo hello
//	    # argv mode instead: command: ["/usr/bin/env", "date"]
//	    env:
//	      GREETING: hi           # public value
//	      API_TOKEN: {secret: api-token}   # resolved at run time, never stored
//	    workingDir: /tmp         # optional, absolute; default: an empty directory per attempt
//	    timeout: 30s             # default 1h, 1ms … 8760h
//	    killGrace: 10s           # SIGTERM → SIGKILL when ended; default 5s, at most 10m
//	    runAs: {user: svc, group: svc}   # optional; group defaults to the user's
//	    enabled: true            # default true
//	    labels: {team: ops}
//	triggers:
//	  - name: every-10s
//	    task: hello
//	    cron: "*/10 * * * * *"   # 5 fields, or 6 with leading seconds
//	    timezone: UTC            # required IANA zone
//	    misfire: fire_once       # fire_once (default) | skip
//	    enabled: true            # default true
package apply
