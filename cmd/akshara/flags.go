package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/akshara-idn/akshara"
)

// newFlags makes a command's flag set: -h prints usage and the flags.
func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and requires at least minArgs arguments. It
// returns the exit status when the command must stop here (help, or a
// usage error), and ok when it goes on.
func parseFlags(fs *flag.FlagSet, args []string, minArgs int) (status int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	if fs.NArg() < minArgs {
		fs.Usage()
		return exitUsage, false
	}
	return 0, true
}

// languageFlags adds -lang (a tag, or auto) and -langfile; the function it
// returns resolves them after parsing: a nil language means auto.
func languageFlags(fs *flag.FlagSet) func() (*akshara.Language, error) {
	lang := fs.String("lang", "hi", "language tag ("+strings.Join(akshara.Tags(), ", ")+"), or auto: every language of the label's script")
	langFile := fs.String("langfile", "", "use the language `FILE` (a .lang file on disk) instead of -lang")
	return func() (*akshara.Language, error) {
		switch {
		case *langFile != "":
			return loadLanguageFile(*langFile)
		case *lang == "auto":
			return nil, nil
		}
		return akshara.Lookup(*lang)
	}
}
