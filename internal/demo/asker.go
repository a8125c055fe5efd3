package demo

import (
	"bufio"
	"io"
	"slices"
	"strings"

	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// asker answers approval prompts: from the keyboard (y = once, s = session, n = deny, q = stop),
// or by itself with "Allow once" when there is nobody to ask.
type asker struct {
	auto  string          // not empty: answer "Allow once" without asking; says why
	lines <-chan string   // the lines typed; closed at the end of the input
	echo  bool            // print what was typed (the input is not a terminal that echoes it)
	stop  <-chan struct{} // closed on Ctrl-C: answer "Stop turn"
}

// readLines sends each line of r on the channel it returns, and closes it at the end of r.
func readLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// keys maps what a person types to the action it picks.
var keys = map[string]string{
	"y": hermesproto.ApprovalActionAllowOnce, "yes": hermesproto.ApprovalActionAllowOnce,
	"s": hermesproto.ApprovalActionAllowSession, "session": hermesproto.ApprovalActionAllowSession,
	"n": hermesproto.ApprovalActionDeny, "no": hermesproto.ApprovalActionDeny,
	"q": hermesproto.ApprovalActionStop, "quit": hermesproto.ApprovalActionStop, "stop": hermesproto.ApprovalActionStop,
}

// choose picks one of the prompt's actions (titles); "" answers null, which the server takes as Deny.
func (a *asker) choose(term *terminal, titles []string) string {
	pick := func(title string) string {
		if slices.Contains(titles, title) {
			return title
		}
		return ""
	}
	if a.auto != "" {
		term.Println("  → " + hermesproto.ApprovalActionAllowOnce + " (" + a.auto + ")")
		return pick(hermesproto.ApprovalActionAllowOnce)
	}
	for {
		term.Ask(term.style(styleBold, "  allow? [y] once · [s] for this session · [n] deny · [q] stop the turn › "))
		select {
		case line, ok := <-a.lines:
			if !ok {
				term.Answered("\n  → " + hermesproto.ApprovalActionStop + " (end of input)")
				return pick(hermesproto.ApprovalActionStop)
			}
			typed := "" // a terminal echoed the line and its newline already
			if a.echo {
				typed = line + "\n"
			}
			if action, known := keys[strings.ToLower(strings.TrimSpace(line))]; known {
				term.Answered(typed + "  → " + action)
				return pick(action)
			}
			term.Answered(typed + "  please type y, s, n or q")
		case <-a.stop:
			term.Answered("\n  → " + hermesproto.ApprovalActionStop + " (interrupted)")
			return pick(hermesproto.ApprovalActionStop)
		}
	}
}
