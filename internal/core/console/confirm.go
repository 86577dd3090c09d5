package console

// confirmActions is the data of the confirmactions template in l: the
// form posting to action with the session's csrf (and name, when it is
// not ""), its button's id and catalogue key, and the link back to keep
// with its key.
func confirmActions(l, csrf, action, name, id, button, keep, keepText string) map[string]any {
	return map[string]any{"L": l, "CSRF": csrf, "Action": action, "Name": name, "ID": id, "Button": button, "Keep": keep, "KeepText": keepText}
}
