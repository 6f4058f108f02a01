// Command akshara applies India's IDN policy for Indian languages to domain
// name labels, and runs the registry that applies it to registrations.
//
//	akshara check [-lang TAG] [-json] [LABEL ...]
//
// See README.md and docs/cli.md for the commands and their output contract.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Exit statuses (docs/cli.md).
const (
	exitOK      = 0 // every label valid
	exitInvalid = 1 // some label invalid
	exitUsage   = 2 // usage or I/O error
)

// A command is one subcommand of akshara. Each command's file registers it
// in an init function, so that adding a command touches no other file.
type command struct {
	name    string // as typed: "check", "registrar"
	summary string // one line for the usage text; "NAME args" form allowed
	order   int    // position in the usage text (smaller first)
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands = map[string]*command{}

// register adds a command; a name registered twice is a programming error.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("akshara: command " + c.name + " registered twice")
	}
	commands[c.name] = c
}

func usageText() string {
	var cs []*command
	for _, c := range commands {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].order != cs[j].order {
			return cs[i].order < cs[j].order
		}
		return cs[i].name < cs[j].name
	})
	var b strings.Builder
	b.WriteString("usage: akshara <command> [flags] [arguments]\n\nCommands:\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(&b, "  %-9s %s\n", "help", "show this help")
	b.WriteString("\nRun \"akshara <command> -h\" for a command's flags.\n")
	return b.String()
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText())
		return exitUsage
	}
	if c, ok := commands[args[0]]; ok {
		return c.run(args[1:], stdin, stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usageText())
		return exitOK
	}
	fmt.Fprintf(stderr, "akshara: unknown command %q\n\n%s", args[0], usageText())
	return exitUsage
}
