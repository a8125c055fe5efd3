package approve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/hermes-lsp/hermes-lsp/agenthost"
	"github.com/hermes-lsp/hermes-lsp/hermesproto"
)

// askQuestions asks an elicitation or the agent's questions. A client that asks them itself
// (Caps.AsksQuestions) is left to it: no prompt, no message, the answer comes with hermes.approve.
// Otherwise, when every question can be answered by picking (options, a page to visit, a form
// without fields), one prompt per question; else, and when the editor cannot prompt or the person
// dismissed one, the fallback message and code actions.
func (ap *Approver) askQuestions(ctx context.Context, a hermesproto.Approval) (agenthost.Reply, error) {
	ed := ap.cfg.Editor
	if ed.Caps().AsksQuestions {
		<-ctx.Done()
		return agenthost.Reply{}, ctx.Err()
	}
	if ed.CanPrompt() && pickable(a) {
		r, how, err := ap.promptQuestions(ctx, a)
		if how == answered {
			return r, err
		}
	}
	return ap.waitForAnswer(ctx, a)
}

// pickable reports whether every question of a is answered by picking one of its options.
func pickable(a hermesproto.Approval) bool {
	for _, q := range a.Questions {
		if len(q.Options) == 0 {
			return false
		}
	}
	return true
}

// promptQuestions asks a's questions one prompt each, with the prompt slot held for all of them:
// Decline first, then the options by label, then Stop turn. Declining or stopping at any question
// answers the whole approval.
func (ap *Approver) promptQuestions(ctx context.Context, a hermesproto.Approval) (agenthost.Reply, outcome, error) {
	release, err := ap.hold(ctx)
	if err != nil {
		return agenthost.Reply{}, answered, err
	}
	defer release()
	if len(a.Questions) == 0 { // a page to visit, or a form without fields
		accept := hermesproto.QuestionActionAccept
		if a.URL != "" {
			accept = hermesproto.QuestionActionDone
		}
		title, how, err := ap.prompt(ctx, a, questionMessage(a, nil), []string{hermesproto.QuestionActionDecline, accept, hermesproto.ApprovalActionStop})
		if how != answered || err != nil {
			return agenthost.Reply{}, how, err
		}
		switch title {
		case accept:
			return agenthost.Reply{Decision: hermesproto.DecisionOnce}, answered, nil
		case hermesproto.ApprovalActionStop:
			return agenthost.Reply{Decision: hermesproto.DecisionStop}, answered, nil
		}
		return agenthost.Reply{Decision: hermesproto.DecisionDeny}, answered, nil
	}
	answers := make(map[string][]string, len(a.Questions))
	for i := range a.Questions {
		q := &a.Questions[i]
		labels := optionTitles(q.Options)
		titles := append(append([]string{hermesproto.QuestionActionDecline}, labels...), hermesproto.ApprovalActionStop)
		title, how, err := ap.prompt(ctx, a, questionMessage(a, q), titles)
		if how != answered || err != nil {
			return agenthost.Reply{}, how, err
		}
		switch title {
		case hermesproto.ApprovalActionStop:
			return agenthost.Reply{Decision: hermesproto.DecisionStop}, answered, nil
		case hermesproto.QuestionActionDecline:
			return agenthost.Reply{Decision: hermesproto.DecisionDeny}, answered, nil
		}
		k := slices.Index(labels, title)
		if k < 0 {
			return agenthost.Reply{Decision: hermesproto.DecisionDeny}, answered, nil // a title we did not offer: fail closed
		}
		answers[q.ID] = []string{q.Options[k].Value}
	}
	return agenthost.Reply{Decision: hermesproto.DecisionOnce, Answers: answers}, answered, nil
}

// optionTitles are the action titles of a question's options: their labels, made distinct from
// each other and from the prompt's own actions (Decline, Stop turn), so that a title names one
// answer.
func optionTitles(opts []hermesproto.QuestionOption) []string {
	taken := map[string]bool{hermesproto.QuestionActionDecline: true, hermesproto.ApprovalActionStop: true}
	out := make([]string, len(opts))
	for i, o := range opts {
		t := o.Label
		if t == "" {
			t = o.Value
		}
		for n := 2; taken[t]; n++ {
			t = fmt.Sprintf("%s (%d)", o.Label, n)
		}
		taken[t] = true
		out[i] = t
	}
	return out
}

// asker says who asks: "The MCP server docs" or "Hermes".
func asker(a hermesproto.Approval) string {
	if a.Kind == hermesproto.ApprovalKindElicitation {
		return "The MCP server " + a.Server
	}
	return "Hermes"
}

// questionMessage is the prompt of question q of a (nil: a page to visit or a form without
// fields): who asks, their message, the question and what its options mean.
func questionMessage(a hermesproto.Approval, q *hermesproto.Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s asks (approval %s)", asker(a), a.ID)
	if a.Message != "" {
		b.WriteString(": " + a.Message)
	}
	if a.URL != "" {
		b.WriteString("\nOpen this page yourself (Hermes does not open it), then choose Done: " + a.URL)
	}
	if q != nil {
		if len(a.Questions) > 1 {
			fmt.Fprintf(&b, "\n(question %d of %d)", slices.IndexFunc(a.Questions, func(x hermesproto.Question) bool { return x.ID == q.ID })+1, len(a.Questions))
		}
		b.WriteString("\n" + questionLine(*q))
		for _, o := range q.Options {
			if o.Description != "" {
				b.WriteString("\n- " + o.Label + ": " + o.Description)
			}
		}
	}
	return b.String()
}

// questionLine is a question on one line: "Header: text".
func questionLine(q hermesproto.Question) string {
	if q.Header != "" && q.Header != q.Text {
		return q.Header + ": " + q.Text
	}
	return q.Text
}

// questionsFallback is the fallback message of questions: who asks what, each question with its
// options, and how to answer in this editor.
func questionsFallback(a hermesproto.Approval, emacs bool) string {
	var lines []string
	first := asker(a) + " asks"
	if a.Message != "" {
		first += ": " + a.Message
	}
	if emacs {
		first += ". Answer with `M-x hermes-lsp-approve`, or decline from the code actions"
	} else {
		first += " (approval " + a.ID + "). Decline or answer from the code actions, or run hermes.approve with your answers: " + approveExample(a)
	}
	lines = append(lines, first)
	if a.URL != "" {
		lines = append(lines, "The page to open yourself: "+a.URL)
	}
	for _, q := range a.Questions {
		line := "- " + questionLine(q)
		if len(q.Options) > 0 {
			var labels []string
			for _, o := range q.Options {
				labels = append(labels, o.Label)
			}
			line += " (" + strings.Join(labels, ", ") + ")"
		}
		if q.Secret {
			line += " (secret)"
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// approveExample is the hermes.approve arguments that answer a, to be filled in: JSON, for the
// clients whose only way to answer typed questions is to run the command (Helix 25.07's
// :lsp-workspace-command takes them).
func approveExample(a hermesproto.Approval) string {
	answers := make(map[string][]string, len(a.Questions))
	for _, q := range a.Questions {
		answers[q.ID] = []string{"…"}
	}
	b, _ := json.Marshal(hermesproto.ApproveArgs{ApprovalID: a.ID, Decision: string(hermesproto.DecisionOnce), Answers: answers})
	return string(b)
}

// questionActions are the code actions that answer questions: Decline first, then, for a single
// question with options, one per option; for a page or a form without fields, Done or Accept.
func questionActions(a hermesproto.Approval, command func(title, name string, arg any) *protocol.Command) []protocol.CodeAction {
	action := func(title string, args hermesproto.ApproveArgs) protocol.CodeAction {
		title += a.Summary
		return protocol.CodeAction{Title: title, Kind: protocol.QuickFix, Command: command(title, hermesproto.CmdApprove, args)}
	}
	out := []protocol.CodeAction{action(hermesproto.CodeActionTitleDecline, hermesproto.ApproveArgs{ApprovalID: a.ID, Decision: string(hermesproto.DecisionDeny)})}
	switch {
	case len(a.Questions) == 0:
		out = append(out, action(hermesproto.CodeActionTitleAccept, hermesproto.ApproveArgs{ApprovalID: a.ID, Decision: string(hermesproto.DecisionOnce)}))
	case len(a.Questions) == 1 && len(a.Questions[0].Options) > 0:
		q := a.Questions[0]
		for _, o := range q.Options {
			out = append(out, action(fmt.Sprintf(hermesproto.CodeActionTitleAnswer, o.Label), hermesproto.ApproveArgs{
				ApprovalID: a.ID, Decision: string(hermesproto.DecisionOnce), Answers: map[string][]string{q.ID: {o.Value}},
			}))
		}
	}
	return out
}
