package adsynccmd

import (
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adsync/adsync/fixtures/handbook"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

// commandsDoc is the handbook's page of every command and its flags.
const commandsDoc = "docs/commands.md"

// runnable lists every command of the tree under root that does something
// itself (not a group such as adsync audience), root excluded.
func runnable(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range root.Commands() {
		if c.Runnable() {
			out = append(out, c)
		}
		out = append(out, runnable(c)...)
	}
	return out
}

// The front door lists every command cobra declares, one row each, and the
// page of commands has a section for each with every flag and its default:
// a command or flag added without its documentation fails here.
func TestTheDocsListEveryCommandAndEveryFlagWithItsDefault(t *testing.T) {
	t.Parallel()
	readme, err := handbook.Read("README.md")
	require.NoError(t, err)
	doc, err := handbook.Read(commandsDoc)
	require.NoError(t, err)

	root := (&app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}).rootCommand()
	commands := runnable(root)
	require.Greater(t, len(commands), 20, "the walk reaches the subcommands")
	for _, c := range commands {
		path := c.CommandPath()
		require.True(t, regexp.MustCompile("(?m)^\\| `"+path+"[ `]").MatchString(readme), "README.md's table of commands has a row for %s", path)
		section, ok := handbook.Section(doc, path)
		require.True(t, ok, "%s has a section %q", commandsDoc, path)
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "help" {
				return
			}
			row := flagRow(section, f.Name)
			require.NotEmpty(t, row, "%s: the section %s has a row for --%s", commandsDoc, path, f.Name)
			require.True(t, sameFlagDefault(row[1], f), "%s: %s --%s defaults to %q, the page says %s", commandsDoc, path, f.Name, f.DefValue, row[1])
		})
	}
	global, ok := handbook.Section(doc, "Global flags")
	require.True(t, ok, "%s has a section \"Global flags\"", commandsDoc)
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		require.NotEmpty(t, flagRow(global, f.Name), "%s: the global flags have a row for --%s", commandsDoc, f.Name)
	})
}

// flagRow is the cells of the table row of section whose first cell names
// --name, nil when there is none.
func flagRow(section, name string) []string {
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.ReplaceAll(strings.Trim(line, "|"), `\|`, "\x00"), "|")
		if len(cells) < 3 || !strings.HasPrefix(line, "| ") {
			continue
		}
		first := strings.TrimSpace(cells[0])
		if strings.Contains(first, "`--"+name+"`") || strings.Contains(first, "`--"+name+" ") {
			for i := range cells {
				cells[i] = strings.ReplaceAll(strings.TrimSpace(cells[i]), "\x00", "|")
			}
			return cells
		}
	}
	return nil
}

// sameFlagDefault says whether a default cell shows f's default: a zero
// default is not checked (the flag's help names the setting it falls back
// to); a boolean's true is "on"; a list is its items in backquotes; a
// duration may be written another way (5m for 5m0s).
func sameFlagDefault(cell string, f *pflag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "[]":
		return true
	case "true":
		return cell == "on"
	}
	shown := strings.Trim(cell, "`")
	if strings.HasPrefix(f.DefValue, "[") {
		items := strings.Split(cell, ", ")
		for i := range items {
			items[i] = strings.Trim(items[i], "`")
		}
		return "["+strings.Join(items, ",")+"]" == f.DefValue
	}
	if shown == f.DefValue {
		return true
	}
	a, errA := time.ParseDuration(shown)
	b, errB := time.ParseDuration(f.DefValue)
	return errA == nil && errB == nil && a == b
}
