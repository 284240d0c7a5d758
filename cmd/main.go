// Package adsynccmd is adsync's command layer: it parses flags, builds the
// pieces and delegates. Behaviour lives in the packages it calls.
package adsynccmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Main runs the command line and exits with its status.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// exitError carries a specific exit status.
type exitCodeError struct {
	code int
	err  error
}

func (e *exitCodeError) Error() string { return e.err.Error() }
func (e *exitCodeError) Unwrap() error { return e.err }

// usageError marks bad command-line input.
func usageError(format string, args ...any) error {
	return &exitCodeError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// Run executes one command line and returns the exit status. Errors are
// printed as one line on stderr, never as a stack trace.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&app{stdin: stdin, stdout: stdout, stderr: stderr}).run(ctx, args)
}

// run executes one command line with a's streams (and clock).
func (a *app) run(ctx context.Context, args []string) int {
	stdin, stdout, stderr := a.stdin, a.stdout, a.stderr
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := a.withSources(root.ExecuteContext(ctx))
	a.close()
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "adsync: %v\n", err)
	var ec *exitCodeError
	if errors.As(err, &ec) {
		return ec.code
	}
	if isCobraUsageError(err) {
		return exitUsage
	}
	return exitError
}
