package logging

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
	"go.uber.org/zap/zapcore"
	"golang.org/x/term"
)

// New returns a logger writing to w at level. Console output is chosen when w
// is a terminal, JSON lines otherwise (what log collectors expect).
func New(w io.Writer, level string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("log level %q: must be debug, info, warn or error", level)
	}
	var enc zapcore.Encoder
	if isTerminal(w) {
		ec := zap.NewDevelopmentEncoderConfig()
		ec.EncodeLevel = zapcore.CapitalColorLevelEncoder
		ec.EncodeTime = zapcore.TimeEncoderOfLayout("15:04:05.000")
		enc = zapcore.NewConsoleEncoder(ec)
	} else {
		ec := zap.NewProductionEncoderConfig()
		ec.EncodeTime = zapcore.RFC3339NanoTimeEncoder
		ec.TimeKey = "time"
		enc = zapcore.NewJSONEncoder(ec)
	}
	core := zapcore.NewCore(enc, zapcore.Lock(zapcore.AddSync(w)), lvl)
	return zap.New(core), nil
}

// Slog bridges l to log/slog for libraries (River) that log through slog.
// River's own info messages (clients starting and stopping) are kept for
// debug runs; otherwise only its warnings and errors pass.
func Slog(l *zap.Logger) *slog.Logger {
	if !l.Core().Enabled(zapcore.DebugLevel) {
		l = l.WithOptions(zap.IncreaseLevel(zapcore.WarnLevel))
	}
	return slog.New(zapslog.NewHandler(l.Core(), zapslog.WithName("river")))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
