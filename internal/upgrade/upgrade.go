package upgrade

import (
	"context"
	"fmt"
)

// Options says what Run upgrades and where from.
type Options struct {
	Source Source
	// Exe is the executable to replace, with symbolic links resolved.
	Exe string
	// Current is the running version.
	Current string
	// GOOS and GOARCH pick the archive.
	GOOS, GOARCH string
	// Version, when set, is the release to install instead of the newest.
	Version string
	// CheckOnly finds the release without installing it.
	CheckOnly bool
	// Getenv supplies the environment (GOPATH and the like).
	Getenv func(string) string
	// Progress, when set, is told each step.
	Progress func(string)
	// Check runs the new executable; nil means CheckVersion.
	Check func(context.Context, string) error
}

// Result is what Run did.
type Result struct {
	// Tag is the release found (v1.2.3).
	Tag string
	// Newer is true when Tag is newer than the running version.
	Newer bool
	// Installed is true when the executable was replaced.
	Installed bool
}

// Run finds the release, and unless it is not newer (or CheckOnly is
// set) installs it over the executable.
func Run(ctx context.Context, o Options) (Result, error) {
	progress := o.Progress
	if progress == nil {
		progress = func(string) {}
	}
	if !o.CheckOnly {
		if err := Managed(o.Exe, o.Getenv); err != nil {
			return Result{}, err
		}
	}
	tag := ""
	if o.Version != "" {
		// The tag becomes part of the download's URL: a version only.
		if tag = Tag(o.Version); !validTag(tag) {
			return Result{}, fmt.Errorf("%q is not a release version (1.2.3 or v1.2.3)", o.Version)
		}
	} else {
		progress("finding the newest release at " + o.Source.BaseURL)
		t, err := o.Source.Latest(ctx)
		if err != nil {
			return Result{}, err
		}
		tag = t
	}
	res := Result{Tag: tag, Newer: Newer(tag, o.Current)}
	if o.CheckOnly || (o.Version == "" && !res.Newer) {
		return res, nil
	}
	name := AssetName(o.GOOS, o.GOARCH)
	progress("downloading " + name + " of " + tag)
	archive, err := o.Source.Download(ctx, tag, name, maxBinary)
	if err != nil {
		return res, err
	}
	sums, err := o.Source.Download(ctx, tag, "checksums.txt", 1<<20)
	if err != nil {
		return res, err
	}
	if err := Verify(sums, name, archive); err != nil {
		return res, fmt.Errorf("%w; nothing was installed", err)
	}
	bin, err := Extract(name, archive, o.GOOS)
	if err != nil {
		return res, err
	}
	check := o.Check
	if check == nil {
		check = CheckVersion
	}
	progress("installing " + o.Exe)
	if err := Replace(ctx, o.Exe, bin, check); err != nil {
		return res, err
	}
	res.Installed = true
	return res, nil
}
