package adsynccmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/adsync/adsync/jobs"
	"golang.org/x/term"
)

// Main runs the command line and exits with its status.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, stdout := closedPipeAware(ctx, os.Stdout)
	code := Run(ctx, os.Args[1:], os.Stdin, stdout, os.Stderr)
	stop()
	if errors.Is(context.Cause(ctx), errStdoutClosed) {
		code = exitClosedPipe
	}
	os.Exit(code)
}

// exitClosedPipe is the status of a command whose standard output was
// closed before it ended: the status of a process killed by SIGPIPE, which
// shells and pipefail expect.
const exitClosedPipe = 128 + int(syscall.SIGPIPE)

// errStdoutClosed ends a command whose reader went away.
var errStdoutClosed = errors.New("standard output was closed")

// closedPipeAware makes a command stop, as an interrupt stops it, when the
// reader of its standard output goes away (adsync status | head): Go would
// otherwise kill the process at its next write, before it stops what it
// started (the demo's Postgres, the shared fake, River's client). The
// returned context ends with errStdoutClosed at the first write that finds
// the pipe closed. A terminal (which never closes under a command, and
// which a child such as psql must see as one) is returned as it is.
// SIGPIPE is ignored by the whole process: a write to a closed pipe or
// socket returns EPIPE instead, as Go already does for every descriptor but
// standard output and error.
func closedPipeAware(ctx context.Context, stdout *os.File) (context.Context, io.Writer) {
	if term.IsTerminal(int(stdout.Fd())) {
		return ctx, stdout
	}
	signal.Ignore(syscall.SIGPIPE)
	ctx, cancel := context.WithCancelCause(ctx)
	return ctx, writerFunc(func(b []byte) (int, error) {
		n, err := stdout.Write(b)
		if errors.Is(err, syscall.EPIPE) {
			cancel(errStdoutClosed)
		}
		return n, err
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

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
	var input *jobs.InputError // input the packages below found can never work
	if errors.As(err, &input) || isCobraUsageError(err) {
		return exitUsage
	}
	return exitError
}
