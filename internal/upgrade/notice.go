package upgrade

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// noticeInterval is how often Notice asks for the newest release.
const noticeInterval = 24 * time.Hour

// noticeState is what the state file remembers between runs.
type noticeState struct {
	Checked time.Time `json:"checked"`
	Latest  string    `json:"latest,omitempty"`
}

// NoticeOptions say where Notice keeps its state and what it compares.
type NoticeOptions struct {
	Source Source
	// StateFile remembers when the newest release was last looked up.
	StateFile string
	// Current is the running version.
	Current string
	// Now is the current time.
	Now time.Time
	// Disabled is true when CODELOOP_DISABLE_AUTOUPDATE is set or the
	// config says "autoupdate": false.
	Disabled bool
}

// Disabled reports whether update notices are off: CODELOOP_DISABLE_AUTOUPDATE
// set to anything but empty, 0 or false, or the config's autoupdate
// value (as config.Autoupdate spells it) "false".
func Disabled(getenv func(string) string, autoupdate string) bool {
	switch getenv("CODELOOP_DISABLE_AUTOUPDATE") {
	case "", "0", "false":
		return autoupdate == "false"
	}
	return true
}

// Notice returns a line announcing a newer release, or "". It looks the
// newest release up at most once a day, remembering when in the state
// file, so a day's notice is shown once; it never installs anything.
func Notice(ctx context.Context, o NoticeOptions) (string, error) {
	if o.Disabled {
		return "", nil
	}
	var st noticeState
	if data, err := os.ReadFile(o.StateFile); err == nil {
		_ = json.Unmarshal(data, &st) // a damaged file is checked again
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if !st.Checked.IsZero() && o.Now.Sub(st.Checked) < noticeInterval && o.Now.After(st.Checked) {
		return "", nil
	}
	st = noticeState{Checked: o.Now}
	tag, err := o.Source.Latest(ctx)
	if err == nil {
		st.Latest = tag
	}
	// Remember the attempt even when it failed, so an offline machine is
	// not asked again within the day.
	data, jerr := json.Marshal(st)
	if jerr != nil {
		return "", jerr
	}
	if werr := writeState(o.StateFile, data); werr != nil {
		return "", werr
	}
	if err != nil {
		return "", err
	}
	if !Newer(tag, o.Current) {
		return "", nil
	}
	return "codeloop " + tag + " is available (this is " + o.Current + "): run codeloop upgrade", nil
}

func writeState(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}
