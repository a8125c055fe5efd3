package acptest

import (
	"fmt"
	"os"
)

// envScript, in the environment of the test binary, names the script the binary plays as an agent
// of its own (Main) instead of running tests.
const envScript = "HERMES_ACPTEST_SCRIPT"

// Script sets up an agent that runs as a process of its own: its Config and what it does with
// each prompt. A test binary registers its scripts with Main, and a test starts one by name with
// Command.
type Script struct {
	Config   Config
	OnPrompt func(t *Turn) string
}

// Main serves ACP on stdin and stdout as the script the environment names, and exits, when the
// process was started by a Command; otherwise it returns at once. Call it first in TestMain:
//
//	func TestMain(m *testing.M) {
//		acptest.Main(map[string]acptest.Script{"crash": {...}})
//		os.Exit(m.Run())
//	}
//
// The agent exits when its input ends; Turn.Crash writes its last words on stderr and exits with
// status 3.
func Main(scripts map[string]Script) {
	name, ok := os.LookupEnv(envScript)
	if !ok {
		return
	}
	script, ok := scripts[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "acptest: no script %q\n", name)
		os.Exit(2)
	}
	a := newAgent(script.Config)
	a.exit = func(lines []string) {
		for _, line := range lines {
			fmt.Fprintln(os.Stderr, line)
		}
		os.Exit(3)
	}
	a.OnPrompt(script.OnPrompt)
	c := a.serve(os.Stdin, os.Stdout)
	<-c.rpc.Done()
	a.close()
	os.Exit(0)
}

// Command returns the command line and environment that start this test binary as the agent of
// the script named (see Main): for acp.Options' Command, Args and Env. The argument -test.run=^$
// makes the binary run no test should the environment not reach it.
func Command(script string) (command string, args, env []string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, nil, fmt.Errorf("acptest: the test binary: %w", err)
	}
	return exe, []string{"-test.run=^$"}, []string{envScript + "=" + script}, nil
}
