package demo

import (
	"strings"

	"github.com/hermes-lsp/hermes-lsp/internal/fakemodel"
)

// The offline scripted model plays one turn on examples/calc: it reads calc.go (a command on codex's
// safe list: no approval), runs the tests (an exec approval), fixes the off-by-one in Sum (a patch
// approval), runs the tests again and sums up. Each step follows what codex sent: a declined
// command or patch ends the turn with a message saying so, and a workspace that is not the example
// gets a message instead of a patch.

// The example's bug and its fix, as calc.go holds them.
const (
	bugLine = "\tfor i := 1; i < n; i++ {"
	fixLine = "\tfor i := 1; i <= n; i++ {"
)

// Commands the scripted model runs.
const (
	readCommand = "cat calc.go"
	testCommand = "go test ./..."
)

// fixPatch is the apply_patch text that fixes the bug.
const fixPatch = "*** Begin Patch\n" +
	"*** Update File: calc.go\n" +
	"@@ func Sum(n int) int {\n" +
	" \ttotal := 0\n" +
	"-" + bugLine + "\n" +
	"+" + fixLine + "\n" +
	" \t\ttotal += i\n" +
	"*** End Patch\n"

// scriptReply answers one model request of the demo's turn.
func scriptReply(r fakemodel.Request) fakemodel.Reply {
	// The tool calls of this turn: the items after the newest user message.
	start := 0
	for i, it := range r.Input {
		if it.Type == "message" && it.Role == "user" {
			start = i + 1
		}
	}
	var calls int
	var last fakemodel.Item
	for _, it := range r.Input[start:] {
		switch {
		case it.Type == "function_call" || it.Type == "custom_tool_call":
			calls++
		case it.IsToolOutput():
			last = it
		}
	}
	out := last.Output
	reply := scriptStep(calls, out)
	if k := reply.Kind(); k == fakemodel.KindMessage || k == fakemodel.KindExec || k == fakemodel.KindPatch {
		reply = reply.WithUsage(stepUsage(calls))
	}
	return reply
}

// stepUsage is what the scripted model reports for its n-th request: a prompt that grows with the
// turn, mostly cached, as a real model's would.
func stepUsage(n int) fakemodel.Usage {
	prompt := int64(5200 + 700*n)
	output := int64(60 + 25*n)
	return fakemodel.Usage{InputTokens: prompt, CachedTokens: prompt - 700, OutputTokens: output, ReasoningTokens: 24, TotalTokens: prompt + output}
}

// scriptStep is the reply after calls tool calls, the last of which output out.
func scriptStep(calls int, out string) fakemodel.Reply {
	switch calls {
	case 0:
		return fakemodel.Exec(readCommand).WithReasoning("Read the code under test first.")
	case 1:
		if !strings.Contains(out, bugLine) {
			return fakemodel.Message("This is the offline scripted model: it only knows the example in examples/calc, " +
				"and calc.go here is not that example (or could not be read), so I changed nothing.")
		}
		return fakemodel.Exec(testCommand).WithReasoning("Run the tests to see what fails.")
	case 2:
		if declined(out) {
			return fakemodel.Message("You declined running the tests, so I stopped there and changed nothing.")
		}
		return fakemodel.Patch(fixPatch).WithReasoning("Sum stops one short of n: the loop must include n.")
	case 3:
		applied := strings.Contains(out, "Success") || strings.Contains(out, "M calc.go")
		if declined(out) || !applied {
			return fakemodel.Message("The patch was not applied (" + firstLine(out) + "), so calc.go is unchanged.")
		}
		return fakemodel.Exec(testCommand).WithReasoning("Check that the tests pass now.")
	}
	verdict := "The tests pass now."
	if !strings.Contains(out, "ok") || strings.Contains(out, "FAIL") {
		verdict = "The tests still do not pass: " + firstLine(out)
	}
	return fakemodel.Message("Fixed an off-by-one in `Sum` (calc.go): the loop ran `i < n`, so it stopped one short " +
		"and `Sum(3)` was 3 instead of 6. It now runs `i <= n`. " + verdict)
}

// declined reports whether a tool output says the user declined the call.
func declined(out string) bool {
	lower := strings.ToLower(out)
	return strings.Contains(lower, "declined") || strings.Contains(lower, "rejected") || strings.Contains(lower, "denied")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
