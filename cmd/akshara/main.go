// Command akshara applies India's IDN policy for Indian languages to domain
// name labels.
//
//	akshara check [-lang TAG] [-json] [LABEL ...]
//
// See README.md and docs/cli.md for the commands and their output contract.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit statuses (docs/cli.md).
const (
	exitOK      = 0 // every label valid
	exitInvalid = 1 // some label invalid
	exitUsage   = 2 // usage or I/O error
)

const usage = `usage: akshara <command> [flags] [arguments]

Commands:
  check    check labels against a language's IDN policy
  variants list the variants of labels (homographs that conflict with them)
  audit    summarize a large list of labels (all cores, bounded memory)
  serve    run the registry (HTTP API and web page; SQLite by default)
  registrar add NAME   create a registrar and print its API token
  langs    list the languages with a policy
  lint     check a language file and run its examples
  help     show this help

Run "akshara <command> -h" for a command's flags.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "check":
		return cmdCheck(args[1:], stdin, stdout, stderr)
	case "variants":
		return cmdVariants(args[1:], stdin, stdout, stderr)
	case "audit":
		return cmdAudit(args[1:], stdin, stdout, stderr)
	case "serve":
		return cmdServe(args[1:], stdout, stderr)
	case "registrar":
		return cmdRegistrar(args[1:], stdout, stderr)
	case "langs":
		return cmdLangs(args[1:], stdout, stderr)
	case "lint":
		return cmdLint(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "akshara: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}
